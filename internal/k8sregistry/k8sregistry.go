// Package k8sregistry ships a semantic-conventions checkout to collector pods
// as Kubernetes ConfigMaps. A release's model is larger than one ConfigMap
// holds (1 MiB) and its files sit in nested directories, which a
// ConfigMap's keys cannot name ('/' is not allowed in a key): the files are
// packed into several ConfigMaps under flattened keys, and one projected
// volume mounts them all, each key at its path (items[].path), so that the
// pod sees the checkout's tree as registry.Load reads it. otelgov registry
// configmaps writes them; manifestlint checks them.
package k8sregistry // import "github.com/otelgov/otelcol-governance/internal/k8sregistry"

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/otelgov/otelcol-governance/registry"
)

// MaxConfigMapBytes is the size Kubernetes allows a ConfigMap's data
// (1 MiB).
const MaxConfigMapBytes = 1 << 20

// DefaultBudget is the data, keys included, packed into one ConfigMap by
// default: below MaxConfigMapBytes, with room for the object's metadata.
const DefaultBudget = 900 << 10

// Options says how to ship a checkout.
type Options struct {
	// Name names the volume and, suffixed -0, -1, ..., the ConfigMaps.
	Name string
	// Namespace is the ConfigMaps' namespace: the collector CR's.
	Namespace string
	// MountPath is where the pod sees the checkout: the semconv_dir the
	// collector's configuration names.
	MountPath string
	// Budget is the data packed into one ConfigMap (0: DefaultBudget).
	Budget int
}

// Shipment is a checkout as Kubernetes objects.
type Shipment struct {
	// ConfigMaps hold the files, under flattened keys.
	ConfigMaps []map[string]any
	// Volume is the projected volume that mounts every key at its path
	// (an entry of the collector CR's spec.volumes).
	Volume map[string]any
	// Mount mounts it at MountPath (an entry of spec.volumeMounts).
	Mount map[string]any
	// Files and Bytes are what is shipped.
	Files, Bytes int
}

// validName is a DNS-1123 subdomain, what a ConfigMap's and a volume's
// name must be.
var validName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validKey is what a ConfigMap key may hold.
var validKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// Key is the ConfigMap key of a file's path: '/' written "__".
func Key(p string) string { return strings.ReplaceAll(p, "/", "__") }

// Build packs the files registry.Load reads from the checkout dir
// (registry.SemconvFiles) into ConfigMaps of at most o.Budget bytes each,
// in path order, with the projected volume and its mount.
func Build(dir string, o Options) (*Shipment, error) {
	if !validName.MatchString(o.Name) || len(o.Name) > 60 {
		return nil, fmt.Errorf("name %q: want a lower-case DNS name (a-z, 0-9, '-') of at most 60 characters", o.Name)
	}
	if o.Namespace == "" {
		return nil, errors.New("namespace: required: the collector CR's namespace")
	}
	if !path.IsAbs(o.MountPath) || path.Clean(o.MountPath) != o.MountPath || o.MountPath == "/" {
		return nil, fmt.Errorf("mount path %q: want an absolute, clean path other than /", o.MountPath)
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	files, err := registry.SemconvFiles(dir)
	if err != nil {
		return nil, err
	}
	s := &Shipment{}
	var sources []any
	var data map[string]any
	var items []any
	size := 0
	flush := func() {
		if len(data) == 0 {
			return
		}
		name := fmt.Sprintf("%s-%d", o.Name, len(s.ConfigMaps))
		s.ConfigMaps = append(s.ConfigMaps, map[string]any{
			"apiVersion": "v1",
			"kind":       "ConfigMap",
			"metadata": map[string]any{
				"name":      name,
				"namespace": o.Namespace,
				"labels":    map[string]any{"app.kubernetes.io/part-of": "otelcol-governance", "otelgov.io/registry": o.Name},
			},
			"data": data,
		})
		sources = append(sources, map[string]any{"configMap": map[string]any{"name": name, "items": items}})
		data, items, size = nil, nil, 0
	}
	seen := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		k := Key(f)
		if !validKey.MatchString(k) {
			return nil, fmt.Errorf("%s: its ConfigMap key %q holds a character a key cannot (a-z, A-Z, 0-9, '-', '_', '.')", f, k)
		}
		if other, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s and %s flatten to the same ConfigMap key %q", other, f, k)
		}
		seen[k] = f
		n := len(k) + len(b)
		if n > budget {
			return nil, fmt.Errorf("%s: %d bytes, more than one ConfigMap holds (budget %d)", f, n, budget)
		}
		if size+n > budget {
			flush()
		}
		if data == nil {
			data = map[string]any{}
		}
		data[k] = string(b)
		items = append(items, map[string]any{"key": k, "path": f})
		size += n
		s.Files++
		s.Bytes += len(b)
	}
	flush()
	s.Volume = map[string]any{"name": o.Name, "projected": map[string]any{"sources": sources}}
	s.Mount = map[string]any{"name": o.Name, "mountPath": o.MountPath, "readOnly": true}
	return s, nil
}

// Materialize writes below root the files a projected volume of
// ConfigMaps puts in a pod, as the kubelet does: each item's key of its
// ConfigMap at its path. configMaps and volume are Kubernetes objects as
// YAML decodes them (or as Build returns them); it returns the number of
// files written. Tests use it to load what the pods would see.
func Materialize(configMaps []map[string]any, volume map[string]any, root string) (int, error) {
	data := map[string]map[string]any{}
	for _, cm := range configMaps {
		md, _ := cm["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		d, _ := cm["data"].(map[string]any)
		data[name] = d
	}
	projected, _ := volume["projected"].(map[string]any)
	sources, _ := projected["sources"].([]any)
	if len(sources) == 0 {
		return 0, errors.New("the volume projects no ConfigMap")
	}
	n := 0
	for _, src := range sources {
		sm, _ := src.(map[string]any)
		cm, _ := sm["configMap"].(map[string]any)
		name, _ := cm["name"].(string)
		d, ok := data[name]
		if !ok {
			return n, fmt.Errorf("ConfigMap %s is not given", name)
		}
		items, _ := cm["items"].([]any)
		for _, it := range items {
			item, _ := it.(map[string]any)
			key, _ := item["key"].(string)
			p, _ := item["path"].(string)
			content, ok := d[key].(string)
			if !ok {
				return n, fmt.Errorf("ConfigMap %s has no key %s", name, key)
			}
			if path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..") {
				return n, fmt.Errorf("ConfigMap %s: item %s: path %q leaves the volume", name, key, p)
			}
			dst := filepath.Join(root, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
				return n, err
			}
			if err := os.WriteFile(dst, []byte(content), 0o600); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// Package registrycm ships a semantic-conventions checkout to collector pods
// as Kubernetes ConfigMaps. A release's model is larger than one ConfigMap
// holds (1 MiB) and its files sit in nested directories, which a
// ConfigMap's keys cannot name ('/' is not allowed in a key): the files are
// packed into several ConfigMaps under flattened keys, and one projected
// volume mounts them all, each key at its path (items[].path), so that the
// pod sees the checkout's tree as registry.Load reads it. otelgov registry
// configmaps writes them; manifestlint checks them.
package registrycm // import "github.com/otelgov/otelcol-governance/internal/registrycm"

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

package manifestlint

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/otelgov/otelcol-governance/internal/k8sregistry"
)

// RuleRegistryVolume: a registry path of a collector's configuration (the
// governance_registry extension's or the governance processor's
// semconv_dir, org_registries, rules_files) does not reach the pod: it is
// under no spec.volumeMounts mountPath (the image is scratch and holds no
// registry files), its volume mounts no model/ file under a semconv_dir,
// or a ConfigMap the volume projects is missing, over 1 MiB, or lacks a
// key the volume names. otelgov registry configmaps writes volumes this
// rule accepts.
const RuleRegistryVolume Rule = "registry-volume"

// registryPath is one path of a collector's registry configuration.
type registryPath struct {
	key     string // e.g. extensions::governance_registry::semconv_dir
	path    string
	semconv bool // a semconv_dir: must hold model/
}

// registryPaths lists the registry paths of cfg, sorted by key.
func registryPaths(cfg map[string]any) []registryPath {
	var out []registryPath
	add := func(prefix string, m map[string]any) {
		if s, ok := m["semconv_dir"].(string); ok && s != "" {
			out = append(out, registryPath{key: prefix + "::semconv_dir", path: s, semconv: true})
		}
		for _, k := range []string{"org_registries", "rules_files"} {
			for i, v := range listAt(m, k) {
				if s, ok := v.(string); ok && s != "" {
					out = append(out, registryPath{key: fmt.Sprintf("%s::%s[%d]", prefix, k, i), path: s})
				}
			}
		}
	}
	for id, v := range mapAt(cfg, "extensions") {
		m, _ := v.(map[string]any)
		if componentType(id) != "governance_registry" || m == nil {
			continue
		}
		add("extensions::"+id, m)
		if c := mapAt(m, "candidate"); c != nil {
			add("extensions::"+id+"::candidate", c)
		}
	}
	for id, v := range mapAt(cfg, "processors") {
		m, _ := v.(map[string]any)
		if componentType(id) != "governance" || m == nil {
			continue
		}
		if r := mapAt(m, "registry"); r != nil {
			add("processors::"+id+"::registry", r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// checkRegistryVolumes applies RuleRegistryVolume to the collector CR o.
func (l *linter) checkRegistryVolumes(o Object, cfg map[string]any) {
	mounts := map[string]string{} // mountPath -> volume name
	for _, v := range listAt(o.Doc, "spec", "volumeMounts") {
		m, _ := v.(map[string]any)
		if p := str(m, "mountPath"); p != "" {
			mounts[path.Clean(p)] = str(m, "name")
		}
	}
	volumes := map[string]map[string]any{}
	for _, v := range listAt(o.Doc, "spec", "volumes") {
		m, _ := v.(map[string]any)
		volumes[str(m, "name")] = m
	}
	checked := map[string]bool{}
	for _, rp := range registryPaths(cfg) {
		if strings.Contains(rp.path, "${") {
			continue // resolved by a config provider at start
		}
		mount, vol, ok := mountOf(mounts, path.Clean(rp.path))
		if !ok {
			l.report(o, RuleRegistryVolume, "%s: %s is under no spec.volumeMounts mountPath: the image holds no registry files, so the registry does not load in the pod (ship it with otelgov registry configmaps)", rp.key, rp.path)
			continue
		}
		v, ok := volumes[vol]
		if !ok {
			l.report(o, RuleRegistryVolume, "%s: the volume %q mounted at %s is not in spec.volumes", rp.key, vol, mount)
			continue
		}
		files, known := l.volumeFiles(o, v, !checked[vol])
		checked[vol] = true
		if !rp.semconv || !known {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path.Clean(rp.path), mount), "/")
		model := path.Join(rel, "model") + "/"
		if !hasPrefix(files, model) {
			l.report(o, RuleRegistryVolume, "%s: the volume %q mounts no file under %s: a semantic-conventions checkout needs model/ (otelgov registry configmaps ships it)", rp.key, vol, path.Join(mount, rel, "model"))
		}
	}
}

// mountOf finds the mount p is under.
func mountOf(mounts map[string]string, p string) (mount, volume string, ok bool) {
	best := ""
	for m := range mounts {
		if (p == m || strings.HasPrefix(p, strings.TrimSuffix(m, "/")+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return "", "", false
	}
	return best, mounts[best], true
}

func hasPrefix(files []string, prefix string) bool {
	for _, f := range files {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

// volumeFiles lists the paths a configMap or projected volume puts in the
// pod; known is false for other volume types (an image, an emptyDir an
// init container fills), whose content the manifests do not say. With
// report, the ConfigMaps it projects are checked.
func (l *linter) volumeFiles(o Object, v map[string]any, report bool) (files []string, known bool) {
	var sources []map[string]any
	if cm := mapAt(v, "configMap"); cm != nil {
		sources = append(sources, cm)
	} else if p := mapAt(v, "projected"); p != nil {
		for _, s := range listAt(p, "sources") {
			sm, _ := s.(map[string]any)
			cm := mapAt(sm, "configMap")
			if cm == nil {
				return nil, false
			}
			sources = append(sources, cm)
		}
	} else {
		return nil, false
	}
	for _, cm := range sources {
		name := str(cm, "name")
		obj, found := l.configMap(namespaceOf(o), name)
		optional, _ := cm["optional"].(bool)
		if !found && report && !optional {
			l.report(o, RuleRegistryVolume, "volume %q: ConfigMap %s is not among the manifests: the pod does not start without it (lint it with the CR)", str(v, "name"), name)
		}
		data := mapAt(obj.Doc, "data")
		if found && report {
			size := 0
			for k, val := range data {
				size += len(k) + len(fmt.Sprint(val))
			}
			for k, val := range mapAt(obj.Doc, "binaryData") {
				size += len(k) + len(fmt.Sprint(val))
			}
			if size > k8sregistry.MaxConfigMapBytes {
				l.report(o, RuleRegistryVolume, "volume %q: ConfigMap %s holds %d bytes, over the %d a ConfigMap may (split it: otelgov registry configmaps)", str(v, "name"), name, size, k8sregistry.MaxConfigMapBytes)
			}
		}
		items := listAt(cm, "items")
		if len(items) == 0 {
			for k := range data {
				files = append(files, k)
			}
			continue
		}
		for _, it := range items {
			im, _ := it.(map[string]any)
			key, p := str(im, "key"), str(im, "path")
			if report && (path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..")) {
				l.report(o, RuleRegistryVolume, "volume %q: item %s of ConfigMap %s has path %q, which must be relative and stay in the volume", str(v, "name"), key, name, p)
			}
			if _, ok := data[key]; found && report && !ok {
				l.report(o, RuleRegistryVolume, "volume %q: ConfigMap %s has no key %s (items[].key): the pod does not start", str(v, "name"), name, key)
			}
			files = append(files, p)
		}
	}
	return files, true
}

// configMap finds a ConfigMap among the linted objects.
func (l *linter) configMap(ns, name string) (Object, bool) {
	for _, o := range l.all {
		if o.Kind() == "ConfigMap" && namespaceOf(o) == ns && o.Name() == name {
			return o, true
		}
	}
	return Object{}, false
}

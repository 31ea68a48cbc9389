package manifestlint

import (
	"fmt"
	"sort"
	"strings"
)

// collectorPodLabels are the labels the Operator puts on the pods of
// collector CR o (mode deployment, statefulset or daemonset).
func collectorPodLabels(o Object) map[string]string {
	return map[string]string{
		labelComponent: "opentelemetry-collector",
		labelInstance:  namespaceOf(o) + "." + o.Name(),
		labelManagedBy: "opentelemetry-operator",
		labelPartOf:    "opentelemetry",
		labelName:      o.Name() + "-collector",
	}
}

// indexTargets records every pod template and Service: those in the input,
// and those the Operator creates for each non-sidecar collector CR (its
// pods; the <name>-collector and <name>-collector-monitoring Services).
func (l *linter) indexTargets(objs []Object) {
	for _, o := range objs {
		switch {
		case workloadKinds[o.Kind()]:
			l.pods = append(l.pods, labelled{
				namespace: namespaceOf(o),
				labels:    stringMap(mapAt(o.Doc, "spec", "template", "metadata", "labels")),
				what:      o.Kind() + " " + o.Name(),
			})
		case o.Kind() == "Service":
			ports := map[string]bool{}
			for _, p := range listAt(o.Doc, "spec", "ports") {
				pm, _ := p.(map[string]any)
				if n := str(pm, "name"); n != "" {
					ports[n] = true
				}
			}
			l.services = append(l.services, service{
				labelled: labelled{namespace: namespaceOf(o), labels: stringMap(mapAt(o.Doc, "metadata", "labels")), what: "Service " + o.Name()},
				ports:    ports,
			})
		}
	}
	for _, o := range l.collectors {
		if str(o.Doc, "spec", "mode") == "sidecar" {
			continue // the webhook injects a container; the Operator makes no pod or Service
		}
		ns := namespaceOf(o)
		l.pods = append(l.pods, labelled{namespace: ns, labels: collectorPodLabels(o), what: "pods of collector " + o.Name()})
		base := collectorPodLabels(o)
		base[labelServiceType] = "base"
		l.services = append(l.services, service{
			labelled: labelled{namespace: ns, labels: base, what: "Service " + o.Name() + "-collector"},
			ports:    map[string]bool{"otlp-grpc": true, "otlp-http": true},
		})
		mon := collectorPodLabels(o)
		mon[labelName] = o.Name() + "-collector-monitoring"
		mon[labelServiceType] = "monitoring"
		l.services = append(l.services, service{
			labelled: labelled{namespace: ns, labels: mon, what: "Service " + o.Name() + "-collector-monitoring"},
			ports:    map[string]bool{"monitoring": true},
		})
	}
}

func matches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (l *linter) checkService(o Object) {
	sel := stringMap(mapAt(o.Doc, "spec", "selector"))
	if len(sel) == 0 {
		return // a selector-less Service is managed by hand (EndpointSlices)
	}
	ns := namespaceOf(o)
	l.checkInstanceLabel(o, sel, ns)
	for _, p := range l.pods {
		if p.namespace == ns && matches(sel, p.labels) {
			return
		}
	}
	l.report(o, RuleSelectorMatchesNothing, "spec.selector %s matches no pod in namespace %s (known pods: %s)", fmtLabels(sel), ns, l.describe(l.pods, ns))
}

func (l *linter) checkServiceMonitor(o Object) {
	sel := stringMap(mapAt(o.Doc, "spec", "selector", "matchLabels"))
	if len(sel) == 0 && len(listAt(o.Doc, "spec", "selector", "matchExpressions")) == 0 {
		l.report(o, RuleSelectorMatchesNothing, "spec.selector is empty: it selects every Service in its namespaces")
		return
	}
	namespaces := []string{namespaceOf(o)}
	if names := listAt(o.Doc, "spec", "namespaceSelector", "matchNames"); len(names) > 0 {
		namespaces = namespaces[:0]
		for _, n := range names {
			namespaces = append(namespaces, fmt.Sprint(n))
		}
	}
	var ports []string
	for _, e := range listAt(o.Doc, "spec", "endpoints") {
		em, _ := e.(map[string]any)
		if p := str(em, "port"); p != "" {
			ports = append(ports, p)
		}
	}
	if len(ports) == 0 {
		l.report(o, RuleSelectorMatchesNothing, "spec.endpoints names no port")
	}
	for _, ns := range namespaces {
		l.checkInstanceLabel(o, sel, ns)
	}
	var matched []service
	for _, s := range l.services {
		for _, ns := range namespaces {
			if s.namespace == ns && matches(sel, s.labels) {
				matched = append(matched, s)
			}
		}
	}
	if len(matched) == 0 {
		var known []labelled
		for _, s := range l.services {
			known = append(known, s.labelled)
		}
		l.report(o, RuleSelectorMatchesNothing, "spec.selector.matchLabels %s matches no Service in namespaces [%s] (known Services: %s)",
			fmtLabels(sel), strings.Join(namespaces, ", "), l.describe(known, namespaces...))
		return
	}
	for _, p := range ports {
		found := false
		for _, s := range matched {
			if s.ports[p] {
				found = true
			}
		}
		if !found {
			var names []string
			for _, s := range matched {
				for n := range s.ports {
					names = append(names, s.what+":"+n)
				}
			}
			sort.Strings(names)
			l.report(o, RuleSelectorMatchesNothing, "endpoint port %q is not a port name of the selected Services (%s)", p, strings.Join(names, ", "))
		}
	}
}

// checkInstanceLabel explains the most common silent mismatch: the Operator
// sets app.kubernetes.io/instance to <namespace>.<cr-name>, not <cr-name>.
func (l *linter) checkInstanceLabel(o Object, sel map[string]string, ns string) {
	inst, ok := sel[labelInstance]
	if !ok {
		return
	}
	for _, cr := range l.collectors {
		if namespaceOf(cr) == ns && inst == cr.Name() {
			l.report(o, RuleSelectorMatchesNothing, "selector %s: %q is the CR name; the Operator sets %s: %s.%s", labelInstance, inst, labelInstance, ns, cr.Name())
			return
		}
	}
}

func (l *linter) describe(items []labelled, namespaces ...string) string {
	var out []string
	for _, it := range items {
		for _, ns := range namespaces {
			if it.namespace == ns {
				out = append(out, it.what+" "+fmtLabels(it.labels))
			}
		}
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func fmtLabels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

package manifestlint

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Rule names a checklist item. Each Finding carries one.
type Rule string

const (
	// RuleAppNotGoverned: an application workload in a governed namespace
	// lacks the sidecar or the instrumentation injection annotation, or names
	// a CR that is not there.
	RuleAppNotGoverned Rule = "app-not-governed"
	// RulePipelineUngoverned: a collector CR pipeline lacks the governance
	// processor, or memory_limiter is not its first processor.
	RulePipelineUngoverned Rule = "pipeline-ungoverned"
	// RuleCollectorContract: a collector CR breaks the Operator's contract
	// (image, health_check on 13133, metrics reader on 8888 reachable from
	// outside the pod) or its spec.config does not parse.
	RuleCollectorContract Rule = "collector-contract"
	// RuleSelectorMatchesNothing: a Service or ServiceMonitor selector
	// matches no pod or Service among the manifests and the objects the
	// Operator derives from the collector CRs.
	RuleSelectorMatchesNothing Rule = "selector-matches-nothing"
)

// Finding is one failed checklist item.
type Finding struct {
	Rule    Rule
	Object  string
	Message string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: [%s] %s", f.Object, f.Rule, f.Message)
}

// Options tune Lint.
type Options struct {
	// GovernedNamespaces are namespaces whose application workloads must be
	// governed, in addition to every Namespace object in the input labelled
	// GovernedLabel=true.
	GovernedNamespaces []string
	// ImageContains is a substring every collector CR's spec.image must
	// contain; empty disables the check.
	ImageContains string
}

// GovernedLabel marks a Namespace whose applications must be governed.
const GovernedLabel = "otelgov.io/governed"

// Annotation keys the Operator's webhook reads on a pod template.
const (
	sidecarAnnotation         = "sidecar.opentelemetry.io/inject"
	instrumentationAnnotation = "instrumentation.opentelemetry.io/inject-"
)

// Labels the Operator sets on a collector's pods and Services.
const (
	labelComponent   = "app.kubernetes.io/component"
	labelInstance    = "app.kubernetes.io/instance"
	labelManagedBy   = "app.kubernetes.io/managed-by"
	labelPartOf      = "app.kubernetes.io/part-of"
	labelName        = "app.kubernetes.io/name"
	labelServiceType = "operator.opentelemetry.io/collector-service-type"
)

// Ports of the Operator's contract.
const (
	healthPort  = 13133
	metricsPort = 8888
)

var workloadKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true, "Job": true,
}

// Lint runs every check over objs and returns the findings, sorted.
func Lint(objs []Object, opts Options) []Finding {
	l := &linter{opts: opts, governed: map[string]bool{}}
	for _, ns := range opts.GovernedNamespaces {
		l.governed[ns] = true
	}
	for _, o := range objs {
		switch o.Kind() {
		case "Namespace":
			if fmt.Sprint(mapAt(o.Doc, "metadata", "labels")[GovernedLabel]) == "true" {
				l.governed[o.Name()] = true
			}
		case "OpenTelemetryCollector":
			l.collectors = append(l.collectors, o)
		case "Instrumentation":
			l.instrumentations = append(l.instrumentations, o)
		}
	}
	for _, o := range objs {
		switch {
		case workloadKinds[o.Kind()]:
			l.checkWorkload(o)
		case o.Kind() == "OpenTelemetryCollector":
			l.checkCollector(o)
		}
	}
	// Selectors are checked once every pod and Service is known.
	l.indexTargets(objs)
	for _, o := range objs {
		switch o.Kind() {
		case "Service":
			l.checkService(o)
		case "ServiceMonitor":
			l.checkServiceMonitor(o)
		}
	}
	sort.SliceStable(l.findings, func(i, j int) bool {
		if l.findings[i].Object != l.findings[j].Object {
			return l.findings[i].Object < l.findings[j].Object
		}
		return l.findings[i].Message < l.findings[j].Message
	})
	return l.findings
}

type linter struct {
	opts             Options
	governed         map[string]bool
	collectors       []Object
	instrumentations []Object
	pods             []labelled // pod templates: workloads and Operator-made collector pods
	services         []service  // Services: in the input and Operator-made
	findings         []Finding
}

type labelled struct {
	namespace string
	labels    map[string]string
	what      string
}

type service struct {
	labelled
	ports map[string]bool // port names
}

func (l *linter) report(o Object, rule Rule, format string, args ...any) {
	l.findings = append(l.findings, Finding{Rule: rule, Object: o.Ref(), Message: fmt.Sprintf(format, args...)})
}

// namespaceOf returns the object's namespace, "default" when unset.
func namespaceOf(o Object) string {
	if ns := o.Namespace(); ns != "" {
		return ns
	}
	return "default"
}

func (l *linter) checkWorkload(o Object) {
	ns := namespaceOf(o)
	if !l.governed[ns] {
		return
	}
	ann := stringMap(mapAt(o.Doc, "spec", "template", "metadata", "annotations"))
	sidecar, ok := ann[sidecarAnnotation]
	switch {
	case !ok:
		l.report(o, RuleAppNotGoverned, "namespace %s is governed but the pod template has no %s annotation: its telemetry bypasses the governance sidecar", ns, sidecarAnnotation)
	case sidecar == "false":
		l.report(o, RuleAppNotGoverned, "namespace %s is governed but the pod template sets %s: \"false\"", ns, sidecarAnnotation)
	case sidecar == "true":
		if len(l.collectors) > 0 && !l.hasSidecar(ns) {
			l.report(o, RuleAppNotGoverned, "%s: \"true\" needs an OpenTelemetryCollector in mode sidecar in namespace %s, and there is none", sidecarAnnotation, ns)
		}
	case sidecar != "true":
		cr, found := l.findCR(l.collectors, ns, sidecar)
		switch {
		case !found:
			l.report(o, RuleAppNotGoverned, "%s: %q names no OpenTelemetryCollector in the manifests (looked for %s); the webhook would inject nothing", sidecarAnnotation, sidecar, qualify(ns, sidecar))
		case str(cr.Doc, "spec", "mode") != "sidecar":
			l.report(o, RuleAppNotGoverned, "%s: %q names a collector in mode %q, want mode sidecar", sidecarAnnotation, sidecar, str(cr.Doc, "spec", "mode"))
		}
	}
	var instr []string
	for k := range ann {
		if strings.HasPrefix(k, instrumentationAnnotation) {
			instr = append(instr, k)
		}
	}
	sort.Strings(instr)
	if len(instr) == 0 {
		l.report(o, RuleAppNotGoverned, "namespace %s is governed but the pod template has no %s<language> annotation", ns, instrumentationAnnotation)
		return
	}
	for _, k := range instr {
		v := ann[k]
		switch v {
		case "false":
			l.report(o, RuleAppNotGoverned, "%s is \"false\" in governed namespace %s", k, ns)
		case "true":
			if len(l.instrumentations) > 0 {
				if _, found := l.findCR(l.instrumentations, ns, ""); !found {
					l.report(o, RuleAppNotGoverned, "%s: \"true\" needs an Instrumentation in namespace %s, and there is none", k, ns)
				}
			}
		default:
			if _, found := l.findCR(l.instrumentations, ns, v); !found {
				l.report(o, RuleAppNotGoverned, "%s: %q names no Instrumentation in the manifests (looked for %s)", k, v, qualify(ns, v))
			}
		}
	}
}

// hasSidecar reports whether namespace ns has a collector CR in mode sidecar.
func (l *linter) hasSidecar(ns string) bool {
	for _, cr := range l.collectors {
		if namespaceOf(cr) == ns && str(cr.Doc, "spec", "mode") == "sidecar" {
			return true
		}
	}
	return false
}

// findCR finds ref ("name" in namespace ns, or "other-ns/name") among crs;
// an empty ref matches any CR in ns.
func (l *linter) findCR(crs []Object, ns, ref string) (Object, bool) {
	name := ref
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		ns, name = ref[:i], ref[i+1:]
	}
	for _, cr := range crs {
		if namespaceOf(cr) == ns && (name == "" || cr.Name() == name) {
			return cr, true
		}
	}
	return Object{}, false
}

func qualify(ns, ref string) string {
	if strings.Contains(ref, "/") {
		return ref
	}
	return ns + "/" + ref
}

// CollectorConfig returns a collector CR's spec.config as a map: structured in
// v1beta1, a YAML string in v1alpha1.
func CollectorConfig(o Object) (map[string]any, error) {
	v, ok := lookup(o.Doc, "spec", "config")
	if !ok {
		return nil, fmt.Errorf("spec.config is missing")
	}
	switch c := v.(type) {
	case map[string]any:
		return c, nil
	case string:
		var m map[string]any
		if err := yaml.Unmarshal([]byte(c), &m); err != nil {
			return nil, fmt.Errorf("spec.config does not parse as YAML: %w", err)
		}
		return m, nil
	default:
		return nil, fmt.Errorf("spec.config is a %T, want a map", v)
	}
}

// componentType is the type part of a component ID "type/name".
func componentType(id string) string {
	t, _, _ := strings.Cut(id, "/")
	return t
}

func (l *linter) checkCollector(o Object) {
	if want := l.opts.ImageContains; want != "" {
		if img := str(o.Doc, "spec", "image"); !strings.Contains(img, want) {
			l.report(o, RuleCollectorContract, "spec.image %q is not this distribution (want an image containing %q): the governance processor would be unknown", img, want)
		}
	}
	cfg, err := CollectorConfig(o)
	if err != nil {
		l.report(o, RuleCollectorContract, "%v", err)
		return
	}
	pipelines := mapAt(cfg, "service", "pipelines")
	if len(pipelines) == 0 {
		l.report(o, RulePipelineUngoverned, "spec.config.service.pipelines is empty")
	}
	names := make([]string, 0, len(pipelines))
	for name := range pipelines {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, _ := pipelines[name].(map[string]any)
		var procs []string
		for _, v := range listAt(p, "processors") {
			procs = append(procs, fmt.Sprint(v))
		}
		governed := false
		for _, id := range procs {
			if componentType(id) == "governance" {
				governed = true
			}
		}
		if !governed {
			l.report(o, RulePipelineUngoverned, "pipeline %s has no governance processor (processors: [%s])", name, strings.Join(procs, ", "))
		}
		if len(procs) == 0 || componentType(procs[0]) != "memory_limiter" {
			l.report(o, RulePipelineUngoverned, "pipeline %s: memory_limiter must be the first processor (processors: [%s])", name, strings.Join(procs, ", "))
		}
	}
	l.checkHealthCheck(o, cfg)
	l.checkMetricsReader(o, cfg)
	l.checkMemoryPacing(o, cfg)
	l.checkPersistentQueues(o, cfg)
	l.checkAdmission(o, cfg)
}

// checkHealthCheck: the Operator derives the probes from health_check on
// 13133; the kubelet probes the pod IP, so a loopback endpoint fails them.
func (l *linter) checkHealthCheck(o Object, cfg map[string]any) {
	enabled := false
	for _, v := range listAt(cfg, "service", "extensions") {
		if componentType(fmt.Sprint(v)) == "health_check" {
			enabled = true
		}
	}
	if !enabled {
		l.report(o, RuleCollectorContract, "service.extensions lacks health_check: the Operator derives no liveness/readiness probe")
		return
	}
	for id, v := range mapAt(cfg, "extensions") {
		if componentType(id) != "health_check" {
			continue
		}
		ext, _ := v.(map[string]any)
		endpoint := str(ext, "endpoint")
		if endpoint == "" {
			continue // the default, 0.0.0.0:13133 in the Operator's eyes
		}
		host, port, err := net.SplitHostPort(endpoint)
		if err != nil {
			l.report(o, RuleCollectorContract, "extensions.%s.endpoint %q: %v", id, endpoint, err)
			continue
		}
		if port != strconv.Itoa(healthPort) {
			l.report(o, RuleCollectorContract, "extensions.%s.endpoint %q: the Operator probes port %d", id, endpoint, healthPort)
		}
		if isLoopback(host) {
			l.report(o, RuleCollectorContract, "extensions.%s.endpoint %q binds loopback: the kubelet's probes to the pod IP fail", id, endpoint)
		}
	}
}

// checkMetricsReader: the Operator's monitoring Service and the ServiceMonitor
// scrape 8888 on the pod IP.
func (l *linter) checkMetricsReader(o Object, cfg map[string]any) {
	readers := listAt(cfg, "service", "telemetry", "metrics", "readers")
	for _, r := range readers {
		rm, _ := r.(map[string]any)
		prom := mapAt(rm, "pull", "exporter", "prometheus")
		if prom == nil {
			continue
		}
		host := str(prom, "host")
		port := fmt.Sprint(prom["port"])
		if port != strconv.Itoa(metricsPort) {
			l.report(o, RuleCollectorContract, "service.telemetry.metrics prometheus reader on port %s: the Operator's monitoring Service exposes %d", port, metricsPort)
		}
		if host == "" || isLoopback(host) {
			l.report(o, RuleCollectorContract, "service.telemetry.metrics prometheus reader host %q: set 0.0.0.0 so that Prometheus can scrape the pod IP", host)
		}
		return
	}
	l.report(o, RuleCollectorContract, "service.telemetry.metrics has no pull prometheus reader: nothing serves port %d", metricsPort)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

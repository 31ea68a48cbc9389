package manifestlint

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// RulePersistentQueue: an exporter of a gateway (a collector CR in any
// mode but sidecar) keeps what it acknowledged in memory only, or on disk
// that can outgrow its volume. Every exporter that sends over the network
// needs a persistent queue: otlp and otlp_http a sending_queue with
// storage naming a file_storage extension, sized in bytes, and
// prometheus_remote_write its write-ahead log (wal.directory) with the
// in-memory remote_write_queue off. The directories must be on a volume
// the CR mounts (an emptyDir that is not medium: Memory, with a sizeLimit,
// or a volumeClaimTemplate with a storage request), and the files must fit
// it: a queue's bbolt file holds at most queue_size bytes of requests, which
// its pages and free list can double on disk (fileOverhead), and it does not
// shrink without compaction, which writes a copy; the volume must hold every
// file at twice its queue_size, compaction's copy of the largest, and
// walRoom for a write-ahead log that has no bound of its own. file_storage's
// max_size is a finding: a file that reaches it refuses the write
// transactions that reading and deleting need, and the queue drops requests
// it had acknowledged (docs/reliability.md).
const RulePersistentQueue Rule = "persistent-queue"

// walRoom is what the volume must leave a prometheus_remote_write WAL
// beyond the queues' files: the WAL has no size bound, and grows while its
// backend is down.
const walRoom = 512 * mib

// fileOverhead is how much larger than the requests it holds a queue's
// bbolt file may grow: its pages, B+tree and free list.
const fileOverhead = 2

// runtimeRoom is what a collector's process holds in memory besides its
// Go heap (GOMEMLIMIT) and its queues' files: the binary's pages, stacks,
// the runtime's own. Measured in the gateway's fault runs with
// GOMEMLIMIT 256 MiB and the queue nearly empty: cgroup peaks of 239 to
// 298 MiB (docs/reliability.md).
const runtimeRoom = 64 * mib

// localExporters write where they run and have no backend to wait for.
var localExporters = map[string]bool{"debug": true, "nop": true, "file": true}

// queueExporters have exporterhelper's sending_queue.
var queueExporters = map[string]bool{"otlp": true, "otlp_grpc": true, "otlphttp": true, "otlp_http": true}

// walExporters keep their queue in a write-ahead log.
var walExporters = map[string]bool{"prometheusremotewrite": true, "prometheus_remote_write": true}

// queueVolume is a volume of the CR that a queue directory is on.
type queueVolume struct {
	name, mountPath string
	limit           int64 // bytes; 0 when unbounded
	files           []string
	wal             []string
	walPaths        []string
	fileSizes       int64 // the queues' files, each at fileOverhead × its queue_size
	queued          int64 // the queues' queue_size, summed: what their files hold when full
	largest         int64 // the largest file: compaction's copy
	compaction      bool
}

// checkPersistentQueues applies RulePersistentQueue to a non-sidecar CR.
func (l *linter) checkPersistentQueues(o Object, cfg map[string]any) {
	if str(o.Doc, "spec", "mode") == "sidecar" {
		return
	}
	vols := l.queueVolumes(o)
	used := map[string]bool{}
	for _, p := range mapAt(cfg, "service", "pipelines") {
		pm, _ := p.(map[string]any)
		for _, id := range listAt(pm, "exporters") {
			used[fmt.Sprint(id)] = true
		}
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	enabledExt := map[string]bool{}
	for _, id := range listAt(cfg, "service", "extensions") {
		enabledExt[fmt.Sprint(id)] = true
	}
	for _, id := range ids {
		typ := componentType(id)
		exp := mapAt(cfg, "exporters", id)
		key := "exporters." + id
		switch {
		case localExporters[typ]:
		case walExporters[typ]:
			dir := str(exp, "wal", "directory")
			if dir == "" {
				l.report(o, RulePersistentQueue, "%s.wal.directory is not set: what the exporter acknowledged waits in memory and is lost with the process", key)
				continue
			}
			if q := mapAt(exp, "remote_write_queue"); q == nil || fmt.Sprint(q["enabled"]) != "false" {
				l.report(o, RulePersistentQueue, "%s.remote_write_queue.enabled is not false: requests wait in its in-memory queue before the WAL, and are lost with the process", key)
			}
			l.checkRetries(o, key, exp)
			if v := l.volumeOf(o, vols, key+".wal.directory", dir); v != nil {
				v.wal = append(v.wal, id)
				v.walPaths = append(v.walPaths, dir)
			}
		case queueExporters[typ]:
			q := mapAt(exp, "sending_queue")
			storage := str(q, "storage")
			switch {
			case q == nil || fmt.Sprint(q["enabled"]) == "false":
				l.report(o, RulePersistentQueue, "%s.sending_queue is not enabled: a failed export is lost", key)
				continue
			}
			l.checkRetries(o, key, exp)
			if storage == "" {
				l.report(o, RulePersistentQueue, "%s.sending_queue.storage is not set: the queue is in memory and what it acknowledged is lost with the process", key)
				continue
			}
			if s := str(q, "sizer"); s != "bytes" {
				if s == "" {
					s = "requests (the default)"
				}
				l.report(o, RulePersistentQueue, "%s.sending_queue.sizer is %s: size the queue in bytes (sizer: bytes), so that it can be held against the volume", key, s)
				continue
			}
			size := int64(number(q["queue_size"]))
			if size <= 0 {
				l.report(o, RulePersistentQueue, "%s.sending_queue.queue_size is not set: give it in bytes", key)
				continue
			}
			if componentType(storage) != "file_storage" || !enabledExt[storage] {
				l.report(o, RulePersistentQueue, "%s.sending_queue.storage %q is not a file_storage extension listed in service.extensions", key, storage)
				continue
			}
			fs := mapAt(cfg, "extensions", storage)
			fkey := "extensions." + storage
			if n := number(fs["max_size"]); n > 0 {
				l.report(o, RulePersistentQueue, "%s.max_size is set: a file that reaches it refuses the writes that reading and deleting need, and the queue drops requests it had acknowledged; bound the queue with sending_queue.queue_size and the volume's size instead", fkey)
			}
			fileSize := fileOverhead * size
			dir := str(fs, "directory")
			if dir == "" {
				dir = "/var/lib/otelcol/file_storage" // file_storage's default
			}
			v := l.volumeOf(o, vols, fkey+".directory", dir)
			if v == nil {
				continue
			}
			comp := mapAt(fs, "compaction")
			if fmt.Sprint(comp["on_start"]) == "true" || fmt.Sprint(comp["on_rebound"]) == "true" {
				v.compaction = true
				cdir := str(comp, "directory")
				if cdir == "" {
					cdir = "/var/lib/otelcol/file_storage"
				}
				if cv := l.volumeOf(o, vols, fkey+".compaction.directory", cdir); cv != nil && cv != v {
					l.report(o, RulePersistentQueue, "%s.compaction.directory is on volume %s, its files on %s: keep both on one volume, which then holds the copy", fkey, cv.name, v.name)
				}
			}
			// One bbolt file per exporter and signal.
			for _, sig := range l.signalsOf(cfg, id) {
				v.files = append(v.files, id+"/"+sig)
				v.fileSizes += fileSize
				v.queued += size
			}
			v.largest = max(v.largest, fileSize)
		default:
			l.report(o, RulePersistentQueue, "%s: manifestlint does not know how exporter type %s keeps its queue; give it a persistent queue and teach manifestlint (internal/manifestlint/queue.go)", key, typ)
		}
	}
	l.checkQueueMemory(o, vols)
	for _, v := range vols {
		if len(v.files) == 0 && len(v.wal) == 0 {
			continue
		}
		need := v.fileSizes
		what := fmt.Sprintf("%d queue file(s) (%s) at %d× their queue_size, %s", len(v.files), strings.Join(v.files, ", "), fileOverhead, mibString(v.fileSizes))
		if v.compaction {
			need += v.largest
			what += fmt.Sprintf(", compaction's copy %s", mibString(v.largest))
		}
		if len(v.wal) > 0 {
			need += walRoom
			what += fmt.Sprintf(", %s of room for the write-ahead log of %s", mibString(walRoom), strings.Join(v.wal, ", "))
		}
		if v.limit > 0 && need > v.limit {
			l.report(o, RulePersistentQueue, "volume %s (sizeLimit %s) is too small: it must hold %s = %s; the kubelet evicts the pod above sizeLimit", v.name, mibString(v.limit), what, mibString(need))
		}
	}
}

// checkQueueMemory: a queue's bbolt file is read through mmap, and the
// kernel charges the pages it caches to the container's memory cgroup, so
// full queues take their queue_size of limits.memory beside the heap. The
// kernel can drop those pages again (they are written back), so a cgroup
// at its limit reclaims them rather than OOM-killing; but the container
// then has no headroom left. Measured: with one 256 MiB queue full after
// a 5-minute outage, the gateway's 512 MiB cgroup reached its limit
// (docs/reliability.md). The check: GOMEMLIMIT (the heap the GC holds;
// limits.memory when spec.env does not set it) + every queue file's
// queue_size + runtimeRoom within limits.memory.
func (l *linter) checkQueueMemory(o Object, vols []*queueVolume) {
	ms, err := ReadMemorySettings(o)
	if err != nil || ms.Limit == 0 {
		return // the memory-pacing rule reports a limits.memory it cannot read
	}
	// A GOMEMLIMIT the memory-pacing rule reports (unreadable, or above
	// the limit) counts as limits.memory here.
	heap, fromEnv, err := ms.GoMemLimit()
	if err != nil || heap > ms.Limit {
		heap, fromEnv = ms.Limit, false
	}
	what := "spec.env GOMEMLIMIT"
	if !fromEnv {
		what = "GOMEMLIMIT (limits.memory, as the Operator sets it)"
	}
	var queued int64
	var files []string
	for _, v := range vols {
		queued += v.queued
		files = append(files, v.files...)
	}
	if len(files) == 0 {
		return
	}
	if need := heap + queued + runtimeRoom; need > ms.Limit {
		l.report(o, RulePersistentQueue, "limits.memory %s cannot hold %s %s + %d full queue file(s) (%s) at their queue_size, %s, which the kernel caches in the container's memory + %s for the runtime = %s: a long outage fills the cgroup to its limit; lower queue_size to at most %s in all, or raise limits.memory",
			mibString(ms.Limit), what, mibString(heap), len(files), strings.Join(files, ", "), mibString(queued), mibString(runtimeRoom), mibString(need), mibString(max(0, ms.Limit-heap-runtimeRoom)))
	}
}

// checkRetries: retries that give up drop what the queue held.
func (l *linter) checkRetries(o Object, key string, exp map[string]any) {
	r := mapAt(exp, "retry_on_failure")
	if r != nil && fmt.Sprint(r["enabled"]) == "false" {
		l.report(o, RulePersistentQueue, "%s.retry_on_failure is disabled: the first failed export drops the batch", key)
		return
	}
	if v, ok := r["max_elapsed_time"]; !ok || (fmt.Sprint(v) != "0" && fmt.Sprint(v) != "0s") {
		l.report(o, RulePersistentQueue, "%s.retry_on_failure.max_elapsed_time is not 0: retries give up (after 5 minutes by default) and drop what the queue kept through the outage", key)
	}
}

// signalsOf lists the signals of the pipelines that use exporter id.
func (l *linter) signalsOf(cfg map[string]any, id string) []string {
	seen := map[string]bool{}
	for name, p := range mapAt(cfg, "service", "pipelines") {
		pm, _ := p.(map[string]any)
		for _, e := range listAt(pm, "exporters") {
			if fmt.Sprint(e) == id {
				seen[componentType(name)] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// queueVolumes returns the CR's mounted volumes that can hold a queue,
// with their size limits; a mount of any other volume is left out, and
// volumeOf reports a directory on it.
func (l *linter) queueVolumes(o Object) []*queueVolume {
	defs := map[string]map[string]any{}
	for _, v := range listAt(o.Doc, "spec", "volumes") {
		vm, _ := v.(map[string]any)
		defs[str(vm, "name")] = vm
	}
	claims := map[string]map[string]any{}
	for _, c := range listAt(o.Doc, "spec", "volumeClaimTemplates") {
		cm, _ := c.(map[string]any)
		claims[str(cm, "metadata", "name")] = cm
	}
	var out []*queueVolume
	for _, m := range listAt(o.Doc, "spec", "volumeMounts") {
		mm, _ := m.(map[string]any)
		v := &queueVolume{name: str(mm, "name"), mountPath: path.Clean(str(mm, "mountPath"))}
		switch def, claim := defs[v.name], claims[v.name]; {
		case def != nil && def["emptyDir"] != nil:
			ed := mapAt(def, "emptyDir")
			if str(ed, "medium") == "Memory" {
				l.report(o, RulePersistentQueue, "spec.volumes %s is an emptyDir with medium: Memory: its files count against limits.memory, and the queue competes with the data it holds", v.name)
				continue
			}
			v.limit = l.quantity(o, "spec.volumes "+v.name+" emptyDir.sizeLimit", str(ed, "sizeLimit"))
			if v.limit == 0 {
				l.report(o, RulePersistentQueue, "spec.volumes %s emptyDir has no sizeLimit: the queues can fill the node's disk", v.name)
			}
		case claim != nil:
			v.limit = l.quantity(o, "spec.volumeClaimTemplates "+v.name+" storage request", str(claim, "spec", "resources", "requests", "storage"))
			if v.limit == 0 {
				l.report(o, RulePersistentQueue, "spec.volumeClaimTemplates %s requests no storage", v.name)
			}
			if str(o.Doc, "spec", "mode") != "statefulset" {
				l.report(o, RulePersistentQueue, "spec.volumeClaimTemplates %s needs mode statefulset", v.name)
			}
			if g := fmt.Sprint(mapAt(o.Doc, "spec", "podSecurityContext")["fsGroup"]); g != "10001" {
				l.report(o, RulePersistentQueue, "spec.podSecurityContext.fsGroup is %s, want 10001: the image runs as user 10001, and a claimed volume is root's unless fsGroup gives it to the pod", g)
			}
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// quantity parses a Kubernetes quantity; "" is 0.
func (l *linter) quantity(o Object, what, s string) int64 {
	if s == "" {
		return 0
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		l.report(o, RulePersistentQueue, "%s %q: %v", what, s, err)
		return 0
	}
	return q.Value()
}

// volumeOf returns the volume dir is on (the longest mount path that
// contains it), or reports key.
func (l *linter) volumeOf(o Object, vols []*queueVolume, key, dir string) *queueVolume {
	dir = path.Clean(dir)
	var best *queueVolume
	for _, v := range vols {
		if (dir == v.mountPath || strings.HasPrefix(dir, v.mountPath+"/")) && (best == nil || len(v.mountPath) > len(best.mountPath)) {
			best = v
		}
	}
	if best == nil {
		l.report(o, RulePersistentQueue, "%s %q is on no volume the CR mounts (an emptyDir with a sizeLimit, or a volumeClaimTemplate): the container's filesystem is lost with it, and the image's root is read-only", key, dir)
	}
	return best
}

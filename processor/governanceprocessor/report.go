package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelgov/otelcol-governance/extension/registryextension/registryapi"
)

// reportTally fills the registry extension's per-batch report while the walk
// runs. It is used only when the processor takes its registry from an
// extension; otherwise enabled is false and every method returns at once.
// Its slices and maps are reused from batch to batch, so that after the
// first batches of a given shape feeding the report allocates nothing.
type reportTally struct {
	enabled bool
	batch   registryapi.Batch
	// svc is the outcome tally of the current resource's service; it points
	// into batch.Services, or at unused outside a governed resource.
	svc    *[registryapi.NumOutcomes]int64
	svcIdx int
	unused [registryapi.NumOutcomes]int64

	services map[string]int   // service.name -> index in batch.Services
	keys     map[tallyKey]int // (service, key, kind) -> index in batch.Keys
}

type tallyKey struct {
	service int
	key     string
	kind    registryapi.KeyKind
}

func newReportTally(enabled bool) reportTally {
	r := reportTally{enabled: enabled}
	if enabled {
		r.services = make(map[string]int, 8)
		r.keys = make(map[tallyKey]int, 64)
	}
	r.svc = &r.unused
	return r
}

// resource selects the service tally of a resource's service.name ("" when
// it has none).
func (r *reportTally) resource(attrs pcommon.Map) {
	if !r.enabled {
		return
	}
	name := ""
	if v, ok := attrs.Get(serviceNameKey); ok && v.Type() == pcommon.ValueTypeStr {
		name = v.Str()
	}
	i, ok := r.services[name]
	if !ok {
		i = len(r.batch.Services)
		r.batch.Services = append(r.batch.Services, registryapi.ServiceTally{Service: name})
		r.services[name] = i
	}
	r.svcIdx = i
	r.svc = &r.batch.Services[i].Outcomes
}

// key counts one key of a kind for the current service.
func (r *reportTally) key(k string, kind registryapi.KeyKind) {
	if !r.enabled {
		return
	}
	tk := tallyKey{service: r.svcIdx, key: k, kind: kind}
	if i, ok := r.keys[tk]; ok {
		r.batch.Keys[i].Count++
		return
	}
	r.keys[tk] = len(r.batch.Keys)
	r.batch.Keys = append(r.batch.Keys, registryapi.KeyTally{Service: r.svcIdx, Key: k, Kind: kind, Count: 1})
}

// reset empties the tally, keeping capacity, and drops every reference to the
// batch's strings.
func (r *reportTally) reset() {
	clear(r.batch.Services)
	clear(r.batch.Keys)
	r.batch.Reset()
	clear(r.services)
	clear(r.keys)
	r.svc = &r.unused
	r.svcIdx = 0
}

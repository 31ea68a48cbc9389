package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func levelOf(t *testing.T, s *Group, key string) RequirementLevel {
	t.Helper()
	for i, a := range s.Attrs {
		if a.Key == key {
			for l := range s.Levels {
				if s.Levels[l].Has(i) {
					return RequirementLevel(l)
				}
			}
		}
	}
	t.Fatalf("%s: no attribute %s", s.ID, key)
	return 0
}

func TestGroupsEmbedded(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)

	m := ix.MetricGroup("http.server.request.duration")
	require.NotNil(t, m)
	assert.Equal(t, "histogram", m.Metric.Instrument)
	assert.Equal(t, "s", m.Metric.Unit)
	// Inherited from attributes.http.common through two extends.
	assert.Equal(t, RequirementRequired, levelOf(t, m, "http.request.method"))
	assert.Equal(t, RequirementRequired, levelOf(t, m, "url.scheme"))
	// Overridden by metric_attributes.http.server.
	assert.Equal(t, RequirementOptIn, levelOf(t, m, "server.address"))
	assert.Equal(t, -1, m.Position(ix.Lookup("user.id")))
	assert.GreaterOrEqual(t, m.Position(ix.Lookup("http.request.method")), 0)
	assert.Nil(t, ix.MetricGroup("no.such.metric"))

	s := ix.SpanGroup("span.http.server")
	require.NotNil(t, s)
	assert.True(t, s.HasKind)
	assert.Equal(t, SpanKindServer, s.SpanKind)
	// A ref without requirement_level keeps the inherited level.
	assert.Equal(t, RequirementRequired, levelOf(t, s, "http.request.method"))
	assert.Equal(t, RequirementRequired, levelOf(t, s, "url.path"))
	// A template ref matches the template's instances.
	assert.GreaterOrEqual(t, s.Position(ix.Lookup("http.request.header.x-id")), 0)

	// v2 spans and refinements.
	require.NotNil(t, ix.SpanGroup("span.faas.server"))
	assert.Equal(t, RequirementRequired, levelOf(t, ix.SpanGroup("span.faas.server"), "faas.trigger"))
	k := ix.SpanGroup("span.messaging.kafka.create.producer")
	require.NotNil(t, k)
	assert.Equal(t, RequirementRequired, levelOf(t, k, "messaging.system"))

	e := ix.EventGroup("exception")
	require.NotNil(t, e)
	assert.Equal(t, RequirementConditionallyRequired, levelOf(t, e, "exception.type"))
	assert.Nil(t, ix.EventGroup("no.such.event"))

	svc := ix.EntityGroup("service")
	require.NotNil(t, svc)
	assert.Same(t, svc, ix.ServiceEntity())
	assert.Equal(t, RequirementRequired, levelOf(t, svc, "service.name"))

	for _, sig := range ix.Groups() {
		assert.LessOrEqual(t, len(sig.Attrs), MaxGroupAttributes, sig.ID)
	}
}

func TestMatchSpan(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	bits := func(keys ...string) uint64 {
		var b uint64
		for _, k := range keys {
			b |= ix.Lookup(k).MatchBit()
		}
		return b
	}
	tests := []struct {
		name string
		kind SpanKind
		keys []string
		want string // "" for no match
	}{
		{"http server", SpanKindServer, []string{"http.request.method"}, "span.http.server"},
		{"http client", SpanKindClient, []string{"http.request.method", "url.full"}, "span.http.client"},
		{"db client", SpanKindClient, []string{"db.system.name"}, "span.db.client"},
		{"producer", SpanKindProducer, []string{"messaging.system"}, "span.messaging.send.producer"},
		{"consumer", SpanKindConsumer, []string{"messaging.system"}, "span.messaging.process.consumer"},
		{"rpc client", SpanKindClient, []string{"rpc.system.name"}, "span.rpc.call.client"},
		{"rpc server", SpanKindServer, []string{"rpc.system.name"}, "span.rpc.call.server"},
		{"faas server", SpanKindServer, []string{"faas.trigger"}, "span.faas.server"},
		{"faas client", SpanKindClient, []string{"faas.invoked_name"}, "span.faas.client"},
		{"http server claim, internal kind", SpanKindInternal, []string{"http.request.method", "url.scheme"}, "span.http.server"},
		{"http client claim, internal kind", SpanKindInternal, []string{"http.request.method", "url.full"}, "span.http.client"},
		{"db claim, server kind", SpanKindServer, []string{"db.system.name"}, "span.db.client"},
		{"no identifying attribute", SpanKindServer, []string{"url.path"}, ""},
		{"method alone, internal", SpanKindInternal, []string{"http.request.method"}, ""},
		{"rpc, internal", SpanKindInternal, []string{"rpc.system.name"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.MatchSpan(tt.kind, bits(tt.keys...))
			if tt.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tt.want, got.ID)
		})
	}
}

func TestExtendsNamespace(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	assert.True(t, ix.ExtendsNamespace("http.request.foo"))
	assert.True(t, ix.ExtendsNamespace("http.foo"))
	assert.False(t, ix.ExtendsNamespace("acme.foo"))
	assert.False(t, ix.ExtendsNamespace("http"))
	assert.False(t, ix.ExtendsNamespace(""))
}

func TestUserMatchersAndGroups(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"reg/a.yaml": `groups:
  - id: registry.acme
    type: attribute_group
    attributes:
      - id: acme.op
        type: string
        stability: development
      - id: acme.tenant
        type: string
        stability: development
  - id: acme.common
    type: attribute_group
    attributes:
      - ref: acme.tenant
        requirement_level: required
  - id: span.acme.op
    type: span
    span_kind: internal
    extends: acme.common
    attributes:
      - ref: acme.op
        requirement_level: required
`,
		"rules.yaml": `file_format: otelgov.rules/2
matchers:
  - span: span.acme.op
    present: [acme.op]
`,
	})
	ix, err := Load(Sources{Embedded: true, OrgRegistries: []string{dir + "/reg"}, RulesFiles: []string{dir + "/rules.yaml"}})
	require.NoError(t, err)
	s := ix.SpanGroup("span.acme.op")
	require.NotNil(t, s)
	assert.Equal(t, RequirementRequired, levelOf(t, s, "acme.tenant"))
	got := ix.MatchSpan(SpanKindServer, ix.Lookup("acme.op").MatchBit())
	require.NotNil(t, got)
	assert.Equal(t, "span.acme.op", got.ID)
	// User matchers come before the shipped ones.
	assert.Equal(t, "span.acme.op", ix.SpanMatchers()[0].Group.ID)

	def, err := Default()
	require.NoError(t, err)
	assert.NotEqual(t, def.Digest(), ix.Digest())
}

func TestGroupErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		rules string
		want  string
	}{
		{
			name: "unknown parent",
			files: map[string]string{"a.yaml": goodAttr + `  - id: span.x
    type: span
    extends: no.such.group
    attributes:
      - ref: x.a
`},
			want: `group "no.such.group" is not a known group`,
		},
		{
			name: "cycle",
			files: map[string]string{"a.yaml": goodAttr + `  - id: g.a
    type: attribute_group
    extends: g.b
  - id: g.b
    type: attribute_group
    extends: g.a
`},
			want: "group inheritance cycle",
		},
		{
			name:  "bad requirement level",
			files: map[string]string{"a.yaml": goodAttr + "  - id: span.x\n    type: span\n    attributes:\n      - ref: x.a\n        requirement_level: sometimes\n"},
			want:  `unknown requirement level "sometimes"`,
		},
		{
			name:  "matcher unknown span",
			files: map[string]string{"a.yaml": goodAttr},
			rules: "file_format: otelgov.rules/2\nmatchers:\n  - span: span.nope\n    present: [x.a]\n",
			want:  `span "span.nope" is not a known span definition`,
		},
		{
			name:  "matcher unknown key",
			files: map[string]string{"a.yaml": goodAttr + "  - id: span.x\n    type: span\n    attributes:\n      - ref: x.a\n"},
			rules: "file_format: otelgov.rules/2\nmatchers:\n  - span: span.x\n    present: [x.nope]\n",
			want:  `attribute "x.nope" is not a known attribute`,
		},
		{
			name:  "matcher without present",
			files: map[string]string{"a.yaml": goodAttr},
			rules: "file_format: otelgov.rules/2\nmatchers:\n  - span: span.x\n    span_kinds: [server]\n",
			want:  "names no present attribute",
		},
		{
			name:  "matchers in a v1 rules file",
			files: map[string]string{"a.yaml": goodAttr},
			rules: "file_format: otelgov.rules/1\nmatchers:\n  - span: span.x\n    present: [x.a]\n",
			want:  `matchers need file_format "otelgov.rules/2"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			src := Sources{OrgRegistries: []string{dir}}
			if tt.rules != "" {
				rdir := writeFiles(t, map[string]string{"r.yaml": tt.rules})
				src.RulesFiles = []string{rdir + "/r.yaml"}
			}
			_, err := Load(src)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestAttrBits(t *testing.T) {
	var b AttrBits
	assert.True(t, b.Empty())
	b.Set(0)
	b.Set(70)
	b.Set(MaxGroupAttributes) // ignored
	assert.Equal(t, 2, b.Count())
	assert.Equal(t, 0, b.Next(0))
	assert.Equal(t, 70, b.Next(1))
	assert.Equal(t, -1, b.Next(71))
	var c AttrBits
	c.Set(70)
	d := b.AndNot(c)
	assert.Equal(t, 1, d.Count())
	assert.True(t, b.Has(70))
	assert.False(t, d.Has(70))
}

func TestLargeDefinition(t *testing.T) {
	var b strings.Builder
	b.WriteString("groups:\n  - id: registry.big\n    type: attribute_group\n    attributes:\n")
	for i := range MaxGroupAttributes + 20 {
		fmt.Fprintf(&b, "      - id: big.a%03d\n        type: string\n        stability: development\n", i)
	}
	b.WriteString("  - id: span.big\n    type: span\n    span_kind: internal\n    extends: registry.big\n")
	dir := writeFiles(t, map[string]string{"big.yaml": b.String()})
	ix, err := Load(Sources{OrgRegistries: []string{dir}})
	require.NoError(t, err)
	s := ix.SpanGroup("span.big")
	require.NotNil(t, s)
	require.Len(t, s.Attrs, MaxGroupAttributes+20)
	// Every attribute belongs to it; presence is tracked for the first
	// MaxGroupAttributes only.
	last := fmt.Sprintf("big.a%03d", MaxGroupAttributes+19)
	assert.Equal(t, MaxGroupAttributes+19, s.Position(ix.Lookup(last)))
	assert.Equal(t, MaxGroupAttributes, s.Levels[RequirementRecommended].Count())
}

func TestNameSet(t *testing.T) {
	names := map[string]struct{}{}
	for i := range 500 {
		names[fmt.Sprintf("ns%d.sub", i)] = struct{}{}
	}
	s := newNameSet(names)
	for n := range names {
		assert.True(t, s.has(n), n)
	}
	assert.False(t, s.has("ns500.sub"))
	assert.False(t, s.has(""))
	var empty nameSet
	assert.False(t, empty.has("x"))
	ix, err := Default()
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(100, func() { ix.ExtendsNamespace("http.request.foo.bar") }))
}

func TestMetricThroughGroupTable(t *testing.T) {
	ix, err := Default()
	require.NoError(t, err)
	for _, m := range ix.Metrics() {
		assert.Same(t, m, ix.Metric(m.Name), m.Name)
	}
	assert.Nil(t, ix.Metric("no.such.metric"))
	assert.Nil(t, ix.Metric(""))
}

func TestEntityAssociationsAndGroupDeprecation(t *testing.T) {
	dir := writeFiles(t, map[string]string{"reg/a.yaml": `groups:
  - id: entity.acme.tenant
    type: entity
    name: acme.tenant
    attributes:
      - id: acme.tenant.id
        type: string
        requirement_level: required
  - id: event.acme.login
    type: event
    name: acme.login
    deprecated:
      reason: obsoleted
    entity_associations:
      - all_of: [acme.tenant, {one_of: [host, container]}]
      - service
`, "bad/a.yaml": `groups:
  - id: event.acme.bad
    type: event
    name: acme.bad
    entity_associations:
      - some_of: [host]
`})
	ix, err := Load(Sources{OrgRegistries: []string{dir + "/reg"}})
	require.NoError(t, err)
	ev := ix.EventGroup("acme.login")
	require.NotNil(t, ev)
	assert.True(t, ev.Deprecated)
	assert.Equal(t, []EntityAssociation{
		{AllOf: []EntityAssociation{{Entity: "acme.tenant"}, {OneOf: []EntityAssociation{{Entity: "host"}, {Entity: "container"}}}}},
		{Entity: "service"},
	}, ev.Entities)
	require.NotNil(t, ix.EntityGroup("acme.tenant"))

	def, err := Default()
	require.NoError(t, err)
	m := def.MetricGroup("k8s.job.active_pods")
	require.NotNil(t, m)
	assert.Equal(t, []EntityAssociation{{Entity: "k8s.job"}}, m.Entities, "the embedded registry keeps entity_associations")

	_, err = Load(Sources{OrgRegistries: []string{dir + "/bad"}})
	require.ErrorContains(t, err, `unknown entity association "some_of"`)
}

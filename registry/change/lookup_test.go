package change_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/registry/change"
)

// TestLookup: the index answers, per name the data carries, exactly the
// kinds the set has on that name (every change of the set is found again
// through it), and nothing for a name the set does not touch.
func TestLookup(t *testing.T) {
	set, err := change.Diff(load(t, "v1.44.0"), load(t, "next-384d661"))
	require.NoError(t, err)
	l := change.NewLookup(set)
	require.False(t, l.Empty())

	assert.True(t, l.Attribute("rpc.response.status_code", "", false, 0, false).Has(change.AttributeRenamed))
	assert.True(t, l.Attribute("rpc.connect_rpc.error_code", "", false, 0, false).Has(change.AttributeRenamed))
	assert.Zero(t, l.Attribute("http.request.method", "GET", true, 0, false))
	assert.Zero(t, l.Metric("acme.not.a.metric"))

	for _, c := range set.Changes {
		var got change.KindSet
		switch {
		case (c.Kind == change.RequirementLevelChanged || c.Kind == change.AttributeSetChanged) && c.Item == change.ItemMetric:
			got = l.Metric(c.Context)
		case c.Kind == change.RequirementLevelChanged || c.Kind == change.AttributeSetChanged:
			continue
		case c.Item == change.ItemAttribute && c.Member != "":
			got = l.Attribute(c.Name, c.Member, true, 0, false)
			if n, err := strconv.ParseInt(c.Member, 10, 64); err == nil {
				assert.True(t, l.Attribute(c.Name, "", false, n, true).Has(c.Kind), "int member %s", c.String())
			}
		case c.Item == change.ItemAttribute:
			got = l.Attribute(c.Name, "", false, 0, false)
		case c.Item == change.ItemMetric:
			got = l.Metric(c.Name)
		default:
			continue
		}
		assert.True(t, got.Has(c.Kind), "%s not found through the lookup", c.String())
	}
	// A member's kinds apply to that value only.
	for _, c := range set.Of(change.EnumMemberRenamed, change.EnumMemberRemoved) {
		assert.False(t, l.Attribute(c.Name, c.Member+"-not-a-member", true, 0, false).Has(c.Kind), c.String())
		break
	}
}

func TestLookupAllocs(t *testing.T) {
	set, err := change.Diff(load(t, "v1.44.0"), load(t, "next-384d661"))
	require.NoError(t, err)
	l := change.NewLookup(set)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_ = l.Attribute("rpc.response.status_code", "OK", true, 0, false)
		_ = l.Attribute("rpc.grpc.status_code", "", false, 14, true)
		_ = l.Metric("rpc.server.duration")
	}))
}

func TestKindSet(t *testing.T) {
	var s change.KindSet
	s = s.With(change.Merge).With(change.AttributeRenamed)
	assert.Equal(t, []change.Kind{change.AttributeRenamed, change.Merge}, s.Kinds())
	assert.Equal(t, 2, s.Len())
	assert.False(t, s.Has(change.AttributeAdded))
}

// TestLookupMembersAndSignals: a member's kinds apply to that value only
// (string and int members alike), and a per-signal change on a metric is
// indexed under the metric, not the attribute it names.
func TestLookupMembersAndSignals(t *testing.T) {
	l := change.NewLookup(&change.Set{Changes: []change.Change{
		{Kind: change.EnumMemberRenamed, Item: change.ItemAttribute, Name: "db.system", Member: "mssql", NewValue: "microsoft.sql_server"},
		{Kind: change.EnumMemberRemoved, Item: change.ItemAttribute, Name: "rpc.grpc.status_code", Member: "14"},
		{Kind: change.RequirementLevelChanged, Item: change.ItemMetric, Name: "error.type", Context: "otel.sdk.span.started"},
		{Kind: change.AttributeSetChanged, Item: change.ItemMetric, Name: "error.type", Context: "otel.sdk.span.live"},
		{Kind: change.RequirementLevelChanged, Item: change.ItemSpan, Name: "server.address", Context: "span.http.client"},
		{Kind: change.UnitChanged, Item: change.ItemMetric, Name: "rpc.server.duration"},
	}})
	assert.Equal(t, change.KindSet(0).With(change.EnumMemberRenamed), l.Attribute("db.system", "mssql", true, 0, false))
	assert.Zero(t, l.Attribute("db.system", "postgresql", true, 0, false))
	assert.Zero(t, l.Attribute("db.system", "", false, 0, false))
	assert.Equal(t, change.KindSet(0).With(change.EnumMemberRemoved), l.Attribute("rpc.grpc.status_code", "", false, 14, true))
	assert.Zero(t, l.Attribute("rpc.grpc.status_code", "", false, 0, true))
	assert.Zero(t, l.Attribute("error.type", "timeout", true, 0, false), "per-signal changes are the signal's")
	assert.Zero(t, l.Metric("error.type"))
	assert.Equal(t, change.KindSet(0).With(change.RequirementLevelChanged), l.Metric("otel.sdk.span.started"))
	assert.Equal(t, change.KindSet(0).With(change.AttributeSetChanged), l.Metric("otel.sdk.span.live"))
	assert.Zero(t, l.Attribute("server.address", "", false, 0, false), "spans are not indexed")
	assert.Zero(t, l.Metric("span.http.client"))
	assert.Equal(t, change.KindSet(0).With(change.UnitChanged), l.Metric("rpc.server.duration"))
	assert.Zero(t, l.Metric("db.system"), "attributes and metrics are separate")
}

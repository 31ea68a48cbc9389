package weaversuite

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/otelgov/otelcol-governance/checker"
)

const testdata = "testdata"

// TestWeaverSuite runs every case of testdata/suite.yaml and checks each
// expectation; it logs the suite's count.
func TestWeaverSuite(t *testing.T) {
	s, err := Load(testdata)
	require.NoError(t, err)
	require.Len(t, s.Weaver.Commit, 40, "suite.yaml pins the Weaver commit")
	var total, passing, pending, excluded int
	for _, x := range s.Exclusions {
		require.NotEmpty(t, x.Reason, "exclusion %s has a reason", x.WeaverTest)
		require.Positive(t, x.Expectations, "exclusion %s counts its assertions", x.WeaverTest)
		excluded += x.Expectations
	}
	for i := range s.Cases {
		c := &s.Cases[i]
		t.Run(c.Name, func(t *testing.T) {
			require.NotEmpty(t, c.WeaverTest)
			require.Positive(t, len(c.Expect)+len(c.FailOn), "a case asserts something")
			res, err := c.Run(testdata)
			require.NoError(t, err)
			findings := res.Findings
			checkerAgrees(t, res)
			weaverAgrees(t, res)
			for j := range c.Expect {
				e := &c.Expect[j]
				total++
				on := findings
				if e.OnReport() {
					on = res.Weaver
				}
				got := e.CountIn(on)
				ok := got == e.Count
				switch {
				case ok && e.Pending == "":
					passing++
				case ok:
					t.Errorf("%s: passes now; remove pending (%s)", e, e.Pending)
				case e.Pending != "":
					pending++
					t.Logf("pending %s: got %d (%s)", e, got, e.Pending)
				default:
					t.Errorf("%s: got %d\n%s", e, got, dump(on))
				}
			}
			if c.Replacements != nil {
				total++
				got := map[string]string{}
				for _, sr := range res.Check.Services {
					for _, f := range sr.Findings {
						for _, nr := range f.Replacements {
							got[nr.Subject+" "+nr.Name] = nr.Replacement.String()
						}
					}
				}
				if assert.Equal(t, c.Replacements, got, "otelgov check's replacements") {
					passing++
				}
			}
			if c.Checked != nil {
				total++
				if assert.Equal(t, *c.Checked, res.Check.Items.Checked(), "items checked (the fail-closed gate's count)") {
					passing++
				}
			}
			for th, fails := range c.FailOn {
				total++
				f, err := checker.ParseFailOn(th)
				require.NoError(t, err)
				verdict := res.Check.Fails(f)
				assert.Equal(t, verdict, res.WeaverFails(f), "--fail-on %s: the Weaver report's verdict is the check's", th)
				if verdict == fails {
					passing++
				} else {
					t.Errorf("--fail-on %s: fails=%v, want %v", th, !fails, fails)
				}
			}
		})
	}
	t.Logf("Weaver %s@%s: %d expectations, %d passing, %d pending; %d assertions of excluded tests",
		s.Weaver.Repository, s.Weaver.Commit[:8], total, passing, pending, excluded)
}

// checkerAgrees asserts that the checker, run over the same input, counts
// the same findings per ID as the suite's recorder: the suite tests what
// otelgov check reports.
func checkerAgrees(t *testing.T, res *Result) {
	t.Helper()
	want := map[string]int64{}
	for i := range res.Findings {
		want[res.Findings[i].ID]++
	}
	got := map[string]int64{}
	for _, s := range res.Check.Services {
		for _, f := range s.Findings {
			got[f.ID] += f.Count
		}
	}
	assert.Equal(t, want, got, "checker and engine findings per ID")
}

// weaverAgrees asserts that otelgov check --format weaver's report holds
// the engine's findings, each once: the same count per ID, level, name,
// signal and sample type.
func weaverAgrees(t *testing.T, res *Result) {
	t.Helper()
	count := func(fs []Finding) map[string]int {
		m := map[string]int{}
		for _, f := range fs {
			m[f.ID+" "+f.Level+" "+f.Subject+"="+f.Name+" "+f.SignalType+"/"+f.SignalName+" "+f.SampleType]++
		}
		return m
	}
	assert.Equal(t, count(res.Findings), count(res.Weaver), "weaver report and engine findings")
}

func dump(fs []Finding) string {
	l := make([]string, 0, len(fs))
	for _, f := range fs {
		line := "  " + f.ID + " " + f.Level + " " + f.Subject + "=" + f.Name + " " + f.SignalType + "/" + f.SignalName + " " + f.SampleType
		if f.Context != nil {
			c, _ := json.Marshal(f.Context)
			line += " " + string(c) + " " + f.Message
		}
		l = append(l, line)
	}
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// TestFailOnInvalid is the CLI's fail_on_invalid_value_is_rejected.
func TestFailOnInvalid(t *testing.T) {
	_, err := checker.ParseFailOn("bogus")
	require.Error(t, err)
}

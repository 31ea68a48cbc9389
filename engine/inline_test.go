package engine

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemoWalkLoopInlined: the compiler inlines the body of memoWalk's
// matching loop over a map's attributes. Go inlines the body of a range-over-func
// loop, a closure called once, only up to a cost of 800
// (inlineClosureCalledOnceCost); past it, each attribute costs a closure
// call and every variable the body shares with memoWalk lives behind a
// pointer. Measured: a single-candidate branch added to the body took it
// over the limit and made a conforming map's hit about 50 % dearer
// (BenchmarkMemo, 184 → 274 cpu-ns/span), with nothing else to show for
// it. The test fails such a change, and the cost it prints says how much
// room is left.
func TestMemoWalkLoopInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with the compiler's inlining report")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "build", "-gcflags=-m=2", "-o", "/dev/null", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, size := range []string{"16", "32", "64"} {
		// range2: the matching loop (range1 reads the first key).
		body := `memoWalk\[go\.shape\.\[` + size + `\]go\.opentelemetry\.io/collector/pdata/pcommon\.Value\]-range2`
		cost := regexp.MustCompile(`can inline ` + body + ` with cost (\d+)`).FindSubmatch(out)
		require.NotNil(t, cost, "memoWalk's loop body (%s handles) can no longer be inlined: %s", size, firstMatch(out, `cannot inline `+body+`[^\n]*`))
		require.Regexp(t, `inlining call to `+body+`\n`, string(out), "memoWalk's loop body (%s handles) is not inlined", size)
		c, err := strconv.Atoi(string(cost[1]))
		require.NoError(t, err)
		t.Logf("memoWalk's loop body (%s handles): inline cost %d of 800", size, c)
	}
}

func firstMatch(out []byte, re string) string {
	return string(regexp.MustCompile(re).Find(out))
}

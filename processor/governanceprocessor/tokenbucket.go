package governanceprocessor // import "github.com/otelgov/otelcol-governance/processor/governanceprocessor"

import "time"

// tokenBucket allows rate events per second with a burst of rate: the
// limiter of the finding logs and of the shadow's sample. The caller
// serialises take.
type tokenBucket struct {
	rate, tokens float64
	last         time.Time
}

func newTokenBucket(perSecond int, now time.Time) tokenBucket {
	return tokenBucket{rate: float64(perSecond), tokens: float64(perSecond), last: now}
}

// take spends one token at now, and reports whether there was one.
func (b *tokenBucket) take(now time.Time) bool {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.rate, b.tokens+dt*b.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

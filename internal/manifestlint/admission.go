package manifestlint

import (
	"fmt"
	"sort"
)

// RuleAdmission: a collector CR that runs the admission extension does not
// wire it into every protocol of its OTLP receivers, leaves a message bound
// implicit, or admits more than its memory limiter's spike allowance can
// hold (extension/admissionextension/README.md, "Sizing"). A CR without
// the extension is not checked here: the testbench's TestGatewayCRSettings
// holds the gateway CR to it.
const RuleAdmission Rule = "admission"

// The sizing inputs the rule uses, as the extension's README derives them.
const (
	// decodeExpansion is a decoded OTLP protobuf request's live heap over
	// its wire size, measured by the extension's TestDecodeExpansion
	// (2.72-2.88x); a request holds its wire bytes and its decoded copy.
	decodeExpansion = 2.9
	// defaultAdmissionRequests is the extension's max_requests_in_flight
	// default.
	defaultAdmissionRequests = 6
	// Each protocol's message bound when the receiver does not set it:
	// grpc-go's and confighttp's defaults.
	defaultGRPCMsgBytes = 4 * mib
	defaultHTTPMsgBytes = 20 * mib
)

// checkAdmission keeps the admission extension's wiring and bound in step
// with the receiver's message bounds and the memory limiter (RuleAdmission).
func (l *linter) checkAdmission(o Object, cfg map[string]any) {
	var admissions []string
	for _, v := range listAt(cfg, "service", "extensions") {
		if id := fmt.Sprint(v); componentType(id) == "admission" {
			admissions = append(admissions, id)
		}
	}
	if len(admissions) == 0 {
		return
	}
	ms, err := ReadMemorySettings(o)
	if err != nil {
		return // reported by memory-pacing
	}
	var spike memoryLimiter
	for _, m := range memoryLimiters(cfg, ms.Limit) {
		if spike.id == "" || m.spike < spike.spike {
			spike = m
		}
	}
	for _, rid := range otlpReceivers(cfg) {
		protocols := mapAt(cfg, "receivers", rid, "protocols")
		for _, proto := range []string{"grpc", "http"} {
			if _, ok := protocols[proto]; !ok {
				continue
			}
			key := "receivers." + rid + ".protocols." + proto
			pc := mapAt(protocols, proto)
			ext := ""
			for _, m := range listAt(pc, "middlewares") {
				mm, _ := m.(map[string]any)
				if id := fmt.Sprint(mm["id"]); componentType(id) == "admission" {
					ext = id
				}
			}
			if ext == "" {
				l.report(o, RuleAdmission, "%s lists no admission middleware (the CR runs %v): its requests are decoded before anything can refuse them", key, admissions)
				continue
			}
			msgKey, msg, def := "max_recv_msg_size_mib", int64(number(pc["max_recv_msg_size_mib"]))*mib, int64(defaultGRPCMsgBytes)
			if proto == "http" {
				msgKey, msg, def = "max_request_body_size", int64(number(pc["max_request_body_size"])), defaultHTTPMsgBytes
			}
			if msg <= 0 {
				l.report(o, RuleAdmission, "%s.%s is not set (the default, %d MiB, applies): set it, the admission bound multiplies it", key, msgKey, def/mib)
				msg = def
			}
			n := int64(number(mapAt(cfg, "extensions", ext)["max_requests_in_flight"]))
			if n <= 0 {
				n = defaultAdmissionRequests
			}
			need := float64(n*msg) * (1 + decodeExpansion)
			if spike.id != "" && need > float64(spike.spike) {
				l.report(o, RuleAdmission, "extensions.%s admits %d requests of up to %d MiB (%s.%s), %.0f MiB with their decoded copies (x%.1f), more than processors.%s's spike allowance (%d MiB): lower max_requests_in_flight to %d",
					ext, n, msg/mib, key, msgKey, need/mib, 1+decodeExpansion, spike.id, spike.spike/mib, int64(float64(spike.spike)/(float64(msg)*(1+decodeExpansion))))
			}
		}
	}
}

// otlpReceivers are the IDs of the otlp receivers that a pipeline uses,
// sorted.
func otlpReceivers(cfg map[string]any) []string {
	used := map[string]bool{}
	for _, p := range mapAt(cfg, "service", "pipelines") {
		pm, _ := p.(map[string]any)
		for _, id := range listAt(pm, "receivers") {
			if s := fmt.Sprint(id); componentType(s) == "otlp" {
				used[s] = true
			}
		}
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stderrPart string
	}{
		{"shipped kustomization passes", []string{"../../distribution/k8s"}, 0, "", "all checks pass"},
		{
			"broken input fails",
			[]string{"../../distribution/k8s", "../../internal/manifestlint/testdata/broken/app-missing-sidecar.yaml"},
			1,
			"[app-not-governed] namespace shop is governed but the pod template has no sidecar.opentelemetry.io/inject annotation", "1 finding(s)",
		},
		{
			"governed namespace by flag",
			[]string{"-governed-namespaces", "shop", "../../internal/manifestlint/testdata/broken/app-missing-sidecar.yaml"},
			1,
			"[app-not-governed]", "2 finding(s)",
		},
		{"missing path", []string{"does-not-exist"}, 2, "", "does-not-exist"},
		{"no arguments", nil, 2, "", "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tt.code, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
			if tt.stdout == "" {
				assert.Empty(t, stdout.String())
			} else {
				assert.Contains(t, stdout.String(), tt.stdout)
			}
			assert.Contains(t, stderr.String(), tt.stderrPart)
		})
	}
}

func TestStdin(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: shop}\nspec: {selector: {app: nothing}}\n"
	code := run([]string{"-"}, strings.NewReader(in), &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout.String(), "Service shop/s (<stdin>#0): [selector-matches-nothing]")
}

func TestPrintConfig(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-print-config", "shop/governance", "../../distribution/k8s"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "endpoint: gateway-collector.observability.svc:4317")
	stdout.Reset()
	code = run([]string{"-print-config", "shop/nope", "../../distribution/k8s"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "no OpenTelemetryCollector shop/nope")
}

package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayerHasParentsAndModes(t *testing.T) {
	l, err := layer([]file{{"etc/otelcol-governance/config.yaml", 0o644, []byte("x")}, {"otelcol-governance", 0o755, []byte("bin")}})
	require.NoError(t, err)
	rc, err := l.Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	got := map[string]int64{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got[h.Name] = h.Mode
		assert.Equal(t, epoch, h.ModTime.UTC(), h.Name)
		assert.Equal(t, 0, h.Uid, h.Name)
	}
	assert.Equal(t, map[string]int64{
		"etc/":                               0o755,
		"etc/otelcol-governance/":            0o755,
		"etc/otelcol-governance/config.yaml": 0o644,
		"otelcol-governance":                 0o755,
	}, got)
}

func TestCheckStatic(t *testing.T) {
	ls, err := exec.LookPath("ls")
	require.NoError(t, err)
	err = checkStatic(ls)
	require.ErrorIs(t, err, errNotStatic)

	notELF := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o600))
	require.ErrorContains(t, checkStatic(notELF), "not an ELF executable")
}

func TestBuildRefusesMissingInputs(t *testing.T) {
	err := run([]string{"-binary", filepath.Join(t.TempDir(), "nope")}, io.Discard, io.Discard)
	require.ErrorContains(t, err, "run `make build`")
}

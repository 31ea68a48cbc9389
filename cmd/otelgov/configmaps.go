package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/internal/k8sregistry"
)

type configMapsOptions struct {
	o      k8sregistry.Options
	output string
}

func newRegistryConfigMaps() *cobra.Command {
	var o configMapsOptions
	cmd := &cobra.Command{
		Use:   "configmaps DIR --name NAME --namespace NS --mount PATH --output OUT",
		Short: "Ship a semantic-conventions checkout to collector pods: ConfigMaps and the projected volume that mounts them",
		Long: `configmaps packs the files the registry loader reads from the
semantic-conventions checkout DIR (model/ with its nested directories,
model/manifest.yaml, the newest schema file) into ConfigMaps of at most
--budget bytes each (a release's model is over the 1 MiB a ConfigMap holds),
under keys with '/' written "__" (a key cannot hold '/'), and writes to the
directory --output:

- configmaps.yaml: the ConfigMaps NAME-0, NAME-1, ... (kubectl apply -f, or a
  kustomization's resources);
- volume.yaml: the projected volume NAME, which puts every key back at its
  path (items[].path), and its mount at --mount: add both entries to the
  collector CR's spec.volumes and spec.volumeMounts, and name --mount as
  semconv_dir in its configuration (otelgov upgrade plan --collector-path
  DIR=PATH writes it so).

manifestlint checks the result: every registry path of a collector's
configuration under a mount, every ConfigMap of its volumes present, under
1 MiB, and holding the keys the volume names.

Exit codes: 0 written; 2 bad input: DIR is not a registry, a file over
--budget, a name or path Kubernetes refuses.`,
		Example: `  otelgov registry configmaps ../semconv-next --name semconv-next --namespace observability \
    --mount /conf/semconv-next --output k8s/semconv-next`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConfigMaps(cmd, &o, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.o.Name, "name", "", "the volume's name and the ConfigMaps' prefix (NAME-0, NAME-1, ...; required)")
	fs.StringVar(&o.o.Namespace, "namespace", "", "the ConfigMaps' namespace: the collector CR's (required)")
	fs.StringVar(&o.o.MountPath, "mount", "", "where the pods see the checkout: the semconv_dir of the collector's configuration (required)")
	fs.IntVar(&o.o.Budget, "budget", k8sregistry.DefaultBudget, "the data, keys included, packed into one ConfigMap, in bytes (at most 1 MiB)")
	fs.StringVar(&o.output, "output", "", "the directory to write configmaps.yaml and volume.yaml to (required; created when missing)")
	return cmd
}

func runConfigMaps(cmd *cobra.Command, o *configMapsOptions, dir string) error {
	if o.output == "" {
		return badInput(fmt.Errorf("--output: required: the directory to write configmaps.yaml and volume.yaml to"))
	}
	if o.o.Budget > k8sregistry.MaxConfigMapBytes {
		return badInput(fmt.Errorf("--budget: %d is over the %d bytes a ConfigMap holds", o.o.Budget, k8sregistry.MaxConfigMapBytes))
	}
	s, err := k8sregistry.Build(dir, o.o)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", dir, err))
	}
	var cms bytes.Buffer
	fmt.Fprintf(&cms, "# otelgov registry configmaps %s: %d file(s), %d bytes, in %d ConfigMap(s).\n", dir, s.Files, s.Bytes, len(s.ConfigMaps))
	enc := yaml.NewEncoder(&cms)
	enc.SetIndent(2)
	for _, c := range s.ConfigMaps {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	vol, err := yaml.Marshal(map[string]any{"volumes": []any{s.Volume}, "volumeMounts": []any{s.Mount}})
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# Add these entries to the collector CR's spec.volumes and spec.volumeMounts\n# (beside the ones it has), and name %s as semconv_dir in its configuration.\n", o.o.MountPath)
	if err := os.MkdirAll(o.output, 0o750); err != nil {
		return badInput(fmt.Errorf("--output: %w", err))
	}
	if err := os.WriteFile(filepath.Join(o.output, "configmaps.yaml"), cms.Bytes(), 0o600); err != nil {
		return badInput(fmt.Errorf("--output: %w", err))
	}
	if err := os.WriteFile(filepath.Join(o.output, "volume.yaml"), append([]byte(header), vol...), 0o600); err != nil {
		return badInput(fmt.Errorf("--output: %w", err))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%d file(s), %d bytes, in %d ConfigMap(s): %s; the volume and its mount at %s: %s\n",
		s.Files, s.Bytes, len(s.ConfigMaps), filepath.Join(o.output, "configmaps.yaml"), o.o.MountPath, filepath.Join(o.output, "volume.yaml"))
	return nil
}

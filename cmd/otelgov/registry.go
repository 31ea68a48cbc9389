package main

import "github.com/spf13/cobra"

// newRegistry is the registry's lifecycle, as in Weaver's command tree
// (weaver registry diff, weaver registry infer): diff compares two
// registries, infer writes an org registry from the telemetry a team sends.
// Its subcommands are added in newRoot.
func newRegistry(sub ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "A registry's lifecycle: compare two registries (diff), write one from telemetry (infer)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(sub...)
	return cmd
}

// newUpgrade moves a fleet from one registry to another without breaking
// its consumers: plan writes the transition, status says when it can end.
// Its subcommands are added in newRoot.
func newUpgrade(sub ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Move a fleet to a new registry: the transition's plan and whether it can end",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(sub...)
	return cmd
}

package main

import "github.com/spf13/cobra"

func newQueries() *cobra.Command {
	return &cobra.Command{Use: "queries PATHS...", Short: "todo", RunE: func(*cobra.Command, []string) error { return nil }}
}

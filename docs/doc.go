// Package docs holds no code: it is the user documentation (the Markdown
// pages of this directory, and docs/otelgov, generated from the otelgov
// command tree). Its test checks that every relative link of the README,
// these pages, the component READMEs and the benchmark results resolves.
package docs

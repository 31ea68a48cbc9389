// Package docs holds no code: it is the user documentation (the Markdown
// pages of this directory, and docs/otelgov, generated from the otelgov
// command tree). Its tests check that every relative link of the README,
// these pages, the component READMEs and the benchmark results resolves
// (TestLinks), and that architecture.md's layer table matches the library
// packages' imports (TestLayers).
package docs

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// soak mirrors testbench.SoakResult (testbench/soak_test.go).
type soak struct {
	Machine         machine `json:"machine"`
	Duration        int64   `json:"duration_ns"`
	CapacityRate    float64 `json:"capacity_rate"`
	Rate            int     `json:"rate"`
	Services        int     `json:"services"`
	AttrsPerItem    int     `json:"attrs_per_item"`
	Sent            uint64  `json:"sent"`
	Received        uint64  `json:"received"`
	Lost            uint64  `json:"lost"`
	Reloads         int     `json:"reloads"`
	Generation      int64   `json:"final_generation"`
	ConformanceSize int     `json:"conformance_bytes"`
	Samples         []struct {
		At         float64 `json:"t_s"`
		RSSMiB     float64 `json:"rss_mib"`
		Goroutines int     `json:"goroutines"`
	} `json:"samples"`
	Problems []string `json:"problems"`
}

// writeSoak renders soak.json, when present, as a section and soak.png.
func writeSoak(md *strings.Builder, dir string) error {
	var s soak
	ok, err := readJSON(filepath.Join(dir, "soak.json"), &s)
	if err != nil || !ok || len(s.Samples) == 0 {
		return err
	}
	first, last := s.Samples[0], s.Samples[len(s.Samples)-1]
	maxRSS, maxG := 0.0, 0
	for _, p := range s.Samples {
		maxRSS, maxG = max(maxRSS, p.RSSMiB), max(maxG, p.Goroutines)
	}
	fmt.Fprintf(md, "## Soak: figures and chart\n\n%s at %d spans/s (half of the %.0f spans/s a 5 s full-speed probe reached), %d services, %d attributes per span, the org registry rewritten %d times (every 10 s, good and broken in turn); %s, load average %s before, %s after.\n\n",
		fmtDur(s.Duration), s.Rate, s.CapacityRate, s.Services, s.AttrsPerItem, s.Reloads, s.Machine.CPU, s.Machine.LoadBefore, s.Machine.LoadAfter)
	md.WriteString("| sent | received | lost | final generation | RSS first → last (max) | goroutines first → last (max) | final /conformance |\n|---:|---:|---:|---:|---|---|---:|\n")
	fmt.Fprintf(md, "| %d | %d | %d | %d | %.1f → %.1f MiB (%.1f) | %d → %d (%d) | %d bytes |\n\n", s.Sent, s.Received, s.Lost, s.Generation,
		first.RSSMiB, last.RSSMiB, maxRSS, first.Goroutines, last.Goroutines, maxG, s.ConformanceSize)
	for _, p := range s.Problems {
		fmt.Fprintf(md, "- problem: %s\n", p)
	}
	md.WriteString("![soak](soak.png)\n\n")
	return soakChart(s, filepath.Join(dir, "soak.png"))
}

func fmtDur(ns int64) string { return fmt.Sprint(time.Duration(ns)) }

func soakChart(s soak, path string) error {
	rss, gor := make(plotter.XYs, len(s.Samples)), make(plotter.XYs, len(s.Samples))
	for i, p := range s.Samples {
		rss[i] = plotter.XY{X: p.At / 60, Y: p.RSSMiB}
		gor[i] = plotter.XY{X: p.At / 60, Y: float64(p.Goroutines)}
	}
	mk := func(title, ylabel string, xy plotter.XYs) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "minutes"
		p.Y.Label.Text = ylabel
		p.Y.Min = 0
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = palette[0]
		p.Add(l)
		return p, nil
	}
	p1, err := mk("Collector RSS during the soak", "MiB", rss)
	if err != nil {
		return err
	}
	p2, err := mk("Collector goroutines during the soak", "goroutines", gor)
	if err != nil {
		return err
	}
	img := vgimg.New(10*vg.Inch, 7*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(12)}
	cs := plot.Align([][]*plot.Plot{{p1}, {p2}}, tiles, dc)
	p1.Draw(cs[0][0])
	p2.Draw(cs[1][0])
	f, err := os.Create(path) //nolint:gosec // the operator names the results directory
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

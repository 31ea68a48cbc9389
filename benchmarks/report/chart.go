package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// errBars are a bar series' min–max ranges, placed at the bars' centres.
type errBars struct {
	x, y, lo, hi []float64
}

func (e errBars) Len() int                    { return len(e.x) }
func (e errBars) XY(i int) (float64, float64) { return e.x[i], e.y[i] }
func (e errBars) YError(i int) (float64, float64) {
	return e.y[i] - e.lo[i], e.hi[i] - e.y[i]
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

// chart draws collector CPU µs per item per configuration: one bar per rate,
// at the median, with a min–max error bar.
func chart(cmp comparison, stats map[key]*configStats, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Collector CPU per span (median of %d interleaved runs, min–max bars)", cmp.Rounds)
	p.Y.Label.Text = "CPU µs per span (user+sys)"
	p.Y.Min = 0
	names := make([]string, len(cmp.Configs))
	for i, c := range cmp.Configs {
		names[i] = c.Name
	}
	width := vg.Points(22)
	// Bars are centred at XMin+i in data units, so that the error bars,
	// placed in data units too, sit exactly on them.
	const step = 0.3
	for ri, rate := range cmp.Rates {
		shift := step * (float64(ri) - float64(len(cmp.Rates)-1)/2)
		var vals plotter.Values
		eb := errBars{}
		for i, c := range cmp.Configs {
			s := stats[key{c.Name, rate}]
			v, lo, hi := 0.0, 0.0, 0.0
			if s != nil && s.Runs > 0 {
				v, lo, hi = s.CPU.Median, s.CPU.Min, s.CPU.Max
			}
			vals = append(vals, v)
			eb.x = append(eb.x, float64(i)+shift)
			eb.y, eb.lo, eb.hi = append(eb.y, v), append(eb.lo, lo), append(eb.hi, hi)
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		bars.XMin = shift
		bars.Color = palette[ri%len(palette)]
		bars.LineStyle.Width = 0
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("%d spans/s", rate), bars)
		e, err := plotter.NewYErrorBars(eb)
		if err != nil {
			return err
		}
		p.Add(e)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(40)
	p.NominalX(names...)
	return p.Save(11*vg.Inch, 5*vg.Inch, path)
}

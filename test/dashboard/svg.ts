// The dashboard picture's page: one SVG line chart per panel, two a row as the dashboard lays them
// out, each with its title, its unit's scale on the left, seconds along the bottom and a legend.
import type { Panel, Series } from './panels.js'

const WIDTH = 660
const HEIGHT = 230
const LEFT = 64
const RIGHT = 12
const TOP = 10
const BOTTOM = 26
const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#ad494a']

export function page (title: string, caption: string, panels: ReadonlyArray<{ panel: Panel, series: Series[] }>): string {
  const cells = panels.map(({ panel, series }) => `<section><h2>${escape(panel.title)}</h2>${chart(series, panel.fieldConfig?.defaults?.unit ?? 'short')}${legend(series)}</section>`)
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { font: 13px/1.3 system-ui, sans-serif; margin: 16px; background: #f4f5f7; color: #222; width: 1368px }
h1 { font-size: 20px; margin: 0 0 4px } p { margin: 0 0 12px; color: #555 }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 12px }
section { background: #fff; border: 1px solid #d8dbe0; border-radius: 4px; padding: 8px 10px }
h2 { font-size: 14px; margin: 0 0 4px }
ul { list-style: none; margin: 2px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px }
li span { display: inline-block; width: 14px; height: 3px; margin-right: 5px; vertical-align: middle }
svg text { font: 11px system-ui, sans-serif; fill: #555 }
</style></head><body><h1>${escape(title)}</h1><p>${escape(caption)}</p><main>${cells.join('')}</main></body></html>`
}

function chart (series: readonly Series[], unit: string): string {
  const values = series.flatMap((s) => s.points.map(([, v]) => v)).filter((v) => Number.isFinite(v))
  const times = series.flatMap((s) => s.points.map(([t]) => t))
  const top = niceTop(Math.max(0, ...values))
  const last = Math.max(1, ...times)
  const plotW = WIDTH - LEFT - RIGHT
  const plotH = HEIGHT - TOP - BOTTOM
  const x = (t: number) => LEFT + (t / last) * plotW
  const y = (v: number) => TOP + plotH - (v / top) * plotH
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(top * f)}" y2="${y(top * f)}" stroke="#e5e7eb"/><text x="${LEFT - 6}" y="${y(top * f) + 4}" text-anchor="end">${format(top * f, unit)}</text>`)
  const ticks = Array.from({ length: Math.floor(last / 5) + 1 }, (_, i) => i * 5).map((t) => `<text x="${x(t)}" y="${HEIGHT - 8}" text-anchor="middle">${t} s</text>`)
  const lines = series.map((s, i) => `<path d="${path(s.points, x, y)}" fill="none" stroke="${COLOURS[i % COLOURS.length]}" stroke-width="1.8"/>`)
  const empty = values.length === 0 ? `<text x="${LEFT + plotW / 2}" y="${TOP + plotH / 2}" text-anchor="middle">no data in these scrapes</text>` : ''
  return `<svg width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">${grid.join('')}${ticks.join('')}${lines.join('')}${empty}</svg>`
}

/** An SVG path through the finite points; a gap where a value is NaN (nothing to compute). */
function path (points: ReadonlyArray<readonly [number, number]>, x: (t: number) => number, y: (v: number) => number): string {
  let d = ''
  let pen = false
  for (const [t, v] of points) {
    if (!Number.isFinite(v)) {
      pen = false
      continue
    }
    d += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(v).toFixed(1)}`
    pen = true
  }
  return d
}

function legend (series: readonly Series[]): string {
  return `<ul>${series.map((s, i) => `<li><span style="background:${COLOURS[i % COLOURS.length]}"></span>${escape(s.name)}</li>`).join('')}</ul>`
}

function niceTop (max: number): number {
  if (max <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  return [1, 2, 2.5, 5, 10].map((step) => step * power).find((top) => top >= max) as number
}

function format (value: number, unit: string): string {
  const short = (v: number) => v === 0 ? '0' : Math.abs(v) >= 100 ? String(Math.round(v)) : String(Math.round(v * 100) / 100)
  switch (unit) {
    case 'reqps': return `${short(value)}/s`
    case 's': return value === 0 ? '0' : value < 1 ? `${short(value * 1000)} ms` : `${short(value)} s`
    case 'percentunit': return `${short(value * 100)}%`
    case 'bytes': return `${short(value / 2 ** 20)} MiB`
    default: return value >= 1e6 ? `${short(value / 1e6)} M` : value >= 1e3 ? `${short(value / 1e3)} k` : short(value)
  }
}

function escape (text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string)
}

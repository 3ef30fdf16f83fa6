// The month's totals by category as an inline SVG bar chart (no library, nothing from a CDN).
// Spending and income are drawn as two groups, each on its own scale: a salary would otherwise
// flatten every expense bar to nothing.

import { categoryLabel, yen } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 420;
const LABEL_W = 92;
const VALUE_W = 86;
const BAR_MAX = WIDTH - LABEL_W - VALUE_W - 8;
const ROW = 26;
const HEADING = 24;

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A label that fits left of the bars (about six full-width characters); the full one is in <title>. */
export function shorten(label, max = 6) {
  const chars = [...label];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : label;
}

/** Rows for the table: one per category with any money, the biggest spending first. */
export function chartRows(byCategory) {
  return [...byCategory]
    .filter((c) => c.expense > 0 || c.income > 0)
    .sort((a, b) => b.expense - a.expense || b.income - a.income || a.category.localeCompare(b.category));
}

/** The two groups to draw: [{kind, label, rows:[{category, value}]}], empty groups left out. */
export function chartGroups(byCategory) {
  const group = (kind, label) => ({
    kind,
    label,
    rows: byCategory
      .filter((c) => c[kind] > 0)
      .map((c) => ({ category: c.category, value: c[kind] }))
      .sort((a, b) => b.value - a.value || a.category.localeCompare(b.category)),
  });
  return [group('expense', '支出'), group('income', '収入')].filter((g) => g.rows.length);
}

/**
 * An accessible SVG: role=img with a title naming every bar's value, so a screen reader gets the
 * numbers too (the table beside it has them as well).
 */
export function categoryChart(byCategory, { title = '分類別の収支' } = {}) {
  const groups = chartGroups(byCategory);
  const height = groups.reduce((sum, g) => sum + HEADING + g.rows.length * ROW, 0) + 4;
  const svg = el('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    width: '100%',
    role: 'img',
    class: 'chart',
    'aria-labelledby': 'chart-title',
  });
  const spoken = groups
    .map((g) => `${g.label}: ${g.rows.map((r) => `${categoryLabel(r.category)} ${yen(r.value)}`).join('、')}`)
    .join('。');
  svg.append(el('title', { id: 'chart-title' }, `${title}。${spoken || 'なし'}`));
  let y = 0;
  for (const g of groups) {
    svg.append(el('text', { x: 0, y: y + 16, class: `chart-heading ${g.kind}` }, g.label));
    y += HEADING;
    const max = Math.max(...g.rows.map((r) => r.value));
    for (const row of g.rows) {
      const w = Math.max(2, Math.round((row.value / max) * BAR_MAX));
      const label = categoryLabel(row.category);
      const bar = el('g', { class: `chart-row ${g.kind}`, 'data-category': row.category });
      bar.append(
        el('title', {}, `${label}: ${yen(row.value)}`),
        el('text', { x: LABEL_W - 8, y: y + 16, 'text-anchor': 'end', class: 'chart-label' }, shorten(label)),
        el('rect', { x: LABEL_W, y: y + 5, width: w, height: 14, rx: 3, class: `bar-${g.kind}` }),
        el('text', { x: LABEL_W + w + 6, y: y + 16, class: 'chart-value' }, yen(row.value)),
      );
      svg.append(bar);
      y += ROW;
    }
  }
  return svg;
}

/**
 * Income and expense month by month (a year's report's `months`) as paired bars on one scale, with
 * the numbers in the title for screen readers.
 */
export function trendChart(months, { title = '月ごとの収支' } = {}) {
  const width = 460;
  const height = 200;
  const top = 10;
  const bottom = 22;
  const max = Math.max(1, ...months.flatMap((m) => [m.income, m.expense]));
  const slot = width / Math.max(months.length, 1);
  const bar = Math.max(2, slot / 2 - 3);
  const scale = (v) => ((height - top - bottom) * v) / max;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', class: 'chart trend' });
  svg.append(el('title', {}, `${title}: ${months.map((m) => `${Number(m.month.slice(5))}月 収入 ${yen(m.income)} 支出 ${yen(m.expense)}`).join('、')}`));
  months.forEach((m, i) => {
    const x = i * slot + 2;
    const g = el('g', { class: 'trend-month', 'data-month': m.month });
    g.append(
      el('rect', { class: 'bar-income', x, y: height - bottom - scale(m.income), width: bar, height: scale(m.income) }),
      el('rect', { class: 'bar-expense', x: x + bar + 1, y: height - bottom - scale(m.expense), width: bar, height: scale(m.expense) }),
      el('text', { class: 'chart-value', x: x + bar, y: height - 6, 'text-anchor': 'middle' }, `${Number(m.month.slice(5))}月`),
    );
    svg.append(g);
  });
  return svg;
}

/** Points [{date, balance}] scaled into a width × height box (y grows downwards); pure, for tests. */
export function linePoints(items, width, height) {
  if (!items.length) return [];
  const values = items.map((p) => p.balance);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const step = items.length > 1 ? width / (items.length - 1) : 0;
  return items.map((p, i) => [Math.round(i * step * 10) / 10, Math.round((height - ((p.balance - low) * height) / span) * 10) / 10]);
}

/** An account's daily balance as a line, its first, lowest, highest and last values in the title. */
export function historyChart(items, { title = '残高の推移' } = {}) {
  const width = 460;
  const height = 160;
  const pad = 8;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height + 2 * pad}`, width: '100%', role: 'img', class: 'chart history' });
  const values = items.map((p) => p.balance);
  const summary = items.length
    ? `${items[0].date} ${yen(values[0])} → ${items.at(-1).date} ${yen(values.at(-1))}（最低 ${yen(Math.min(...values))}、最高 ${yen(Math.max(...values))}）`
    : 'データなし';
  svg.append(el('title', {}, `${title}: ${summary}`));
  const points = linePoints(items, width - 2 * pad, height).map(([x, y]) => `${x + pad},${y + pad}`);
  svg.append(el('polyline', { class: 'history-line', points: points.join(' '), fill: 'none' }));
  return svg;
}

// ---- spending by category: a donut -------------------------------------------------------------

const SLICES = 6; // the biggest categories; the rest as その他

/** The donut's slices: the biggest expenses, the rest summed as その他; each with its share. */
export function donutSlices(byCategory, count = SLICES) {
  const rows = byCategory
    .filter((c) => c.expense > 0)
    .map((c) => ({ category: c.category, label: categoryLabel(c.category), value: c.expense }))
    .sort((a, b) => b.value - a.value || a.category.localeCompare(b.category));
  const slices = rows.slice(0, count);
  const rest = rows.slice(count).reduce((sum, r) => sum + r.value, 0);
  if (rest > 0) slices.push({ category: null, label: 'その他', value: rest });
  const total = slices.reduce((sum, s) => sum + s.value, 0);
  return slices.map((s) => ({ ...s, share: total ? s.value / total : 0 }));
}

/** A share as a person says it: 42%, or <1%. */
export const percent = (share) => (share > 0 && share < 0.005 ? '<1%' : `${Math.round(share * 100)}%`);

/**
 * The month's spending by category as a donut (the total in its hole) with a legend beside it, each
 * slice's amount and share in the title (the table beside it has them too).
 */
export function donutChart(byCategory, { title = '分類別の支出' } = {}) {
  const slices = donutSlices(byCategory);
  const total = slices.reduce((sum, s) => sum + s.value, 0);
  const size = 360;
  const r = 62;
  const cx = 80;
  const cy = 80;
  const ring = 2 * Math.PI * r;
  const svg = el('svg', { viewBox: `0 0 ${size} 160`, width: '100%', role: 'img', class: 'chart donut' });
  svg.append(el('title', {}, `${title}（合計 ${yen(total)}）: ${slices.map((s) => `${s.label} ${yen(s.value)}（${percent(s.share)}）`).join('、') || 'なし'}`));
  let done = 0;
  slices.forEach((s, i) => {
    const length = s.share * ring;
    const slice = el('circle', {
      cx,
      cy,
      r,
      class: `donut-slice slice-${i}`,
      'data-category': s.category ?? '',
      'stroke-dasharray': `${length.toFixed(2)} ${(ring - length).toFixed(2)}`,
      'stroke-dashoffset': (ring / 4 - done).toFixed(2), // from 12 o'clock, clockwise
    });
    slice.append(el('title', {}, `${s.label}: ${yen(s.value)}（${percent(s.share)}）`));
    svg.append(slice);
    done += length;
  });
  svg.append(
    el('text', { x: cx, y: cy - 2, 'text-anchor': 'middle', class: 'donut-total-label' }, '支出'),
    el('text', { x: cx, y: cy + 16, 'text-anchor': 'middle', class: 'donut-total' }, yen(total)),
  );
  slices.forEach((s, i) => {
    const y = 14 + i * 21;
    svg.append(
      el('rect', { x: 176, y: y - 10, width: 12, height: 12, rx: 2, class: `slice-${i} swatch` }),
      el('text', { x: 194, y, class: 'chart-label' }, shorten(s.label, 5)),
      el('text', { x: size - 4, y, 'text-anchor': 'end', class: 'chart-value' }, `${yen(s.value)} ${percent(s.share)}`),
    );
  });
  return svg;
}

// ---- budgets with the pace ---------------------------------------------------------------------

/**
 * Where the month is: the share of its days gone by the end of `day` (1 for a month past, 0 for one
 * to come), so a budget's pace is that share of what it allows.
 */
export function monthPace(month, day) {
  const [year, m] = month.split('-').map(Number);
  const days = new Date(Date.UTC(year, m, 0)).getUTCDate();
  const current = day.slice(0, 7);
  if (current > month) return 1;
  if (current < month) return 0;
  return Number(day.slice(8, 10)) / days;
}

/**
 * Each budget as a bar: what was spent of what it allows (over it: the bar full, in the expense
 * colour), with a mark where spending would be if it kept pace with the month.
 */
export function budgetChart(budgets, { pace = 1, title = '予算の進み具合' } = {}) {
  const width = 420;
  const labelW = 84;
  const valueW = 0;
  const barW = width - labelW - valueW - 8;
  const row = 40;
  const height = budgets.length * row + 4;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', class: 'chart budget-chart' });
  const allowed = (b) => Math.max(b.available ?? b.limit, 0);
  svg.append(
    el(
      'title',
      {},
      `${title}（ペースは月の ${percent(pace)} が過ぎたところ）: ${budgets
        .map((b) => `${categoryLabel(b.category)} ${yen(b.spent)} / ${yen(allowed(b))}（ペース ${yen(Math.round(allowed(b) * pace))}）`)
        .join('、')}`,
    ),
  );
  budgets.forEach((b, i) => {
    const y = i * row;
    const limit = allowed(b);
    const used = limit ? Math.min(b.spent / limit, 1) : b.spent > 0 ? 1 : 0;
    const over = b.spent > limit;
    const ahead = !over && used > pace;
    const g = el('g', { class: `budget-bar${over ? ' over' : ahead ? ' ahead' : ''}`, 'data-category': b.category });
    g.append(
      el('title', {}, `${categoryLabel(b.category)}: ${yen(b.spent)} / ${yen(limit)}（ペース ${yen(Math.round(limit * pace))}）`),
      el('text', { x: labelW - 8, y: y + 17, 'text-anchor': 'end', class: 'chart-label' }, shorten(categoryLabel(b.category))),
      el('rect', { x: labelW, y: y + 5, width: barW, height: 16, rx: 3, class: 'budget-track' }),
      el('rect', { x: labelW, y: y + 5, width: Math.max(used * barW, b.spent > 0 ? 2 : 0).toFixed(1), height: 16, rx: 3, class: 'budget-used' }),
      el('line', { x1: labelW + pace * barW, x2: labelW + pace * barW, y1: y + 1, y2: y + 25, class: 'budget-pace' }),
      el('text', { x: labelW, y: y + 36, class: 'chart-value' }, `${yen(b.spent)} / ${yen(limit)}${over ? ' 超過' : ahead ? ' ペースより速い' : ''}`),
    );
    svg.append(g);
  });
  return svg;
}

// ---- the months ahead: a line per account ------------------------------------------------------

const dayNumber = (date) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86400000;

/**
 * Each account's projected balance as a step line over the days from..until (the balance holds
 * until the day it changes), on one scale: [[x, y], ...] per line, and where 0 falls. Pure, for tests.
 */
export function forecastLines(lines, { from, until, width, height }) {
  const all = lines.flatMap((l) => l.points.map((p) => p.balance));
  const low = Math.min(0, ...all);
  const high = Math.max(0, ...all);
  const span = high - low || 1;
  const first = dayNumber(from);
  const days = Math.max(dayNumber(until) - first, 1);
  const x = (date) => Math.round(((dayNumber(date) - first) / days) * width * 10) / 10;
  const y = (value) => Math.round((height - ((value - low) * height) / span) * 10) / 10;
  const steps = lines.map((l) => {
    const out = [];
    l.points.forEach((p, i) => {
      if (i) out.push([x(p.date), y(l.points[i - 1].balance)]);
      out.push([x(p.date), y(p.balance)]);
    });
    const last = l.points.at(-1);
    if (last) out.push([width, y(last.balance)]);
    return out;
  });
  return { steps, x, y, zero: y(0) };
}

/**
 * The forecast: a line per account ([{id, name, points: [{date, balance}], marks: [date], shortfall}]),
 * each card's debit day marked with a dot, the first shortfall with a ring; a legend under it and
 * every line's start, end, low and marks in the title for screen readers.
 */
export function forecastChart(lines, { from, until, title = '残高の見通し' } = {}) {
  const width = 460;
  const plot = 170;
  const pad = 8;
  const legend = 20 * Math.ceil(lines.length / 2);
  const height = plot + 2 * pad + 16 + legend;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', class: 'chart forecast-chart' });
  const spoken = lines
    .map((l) => {
      const values = l.points.map((p) => p.balance);
      const marks = l.marks.length ? `、引き落とし ${l.marks.map((d) => `${Number(d.slice(5, 7))}/${Number(d.slice(8, 10))}`).join('・')}` : '';
      return `${l.name} ${yen(values[0])} → ${yen(values.at(-1))}（最低 ${yen(Math.min(...values))}${marks}${l.shortfall ? '、残高不足の見込みあり' : ''}）`;
    })
    .join('。');
  svg.append(el('title', {}, `${title}（${from}〜${until}）: ${spoken || 'データなし'}`));
  const inner = width - 2 * pad;
  const { steps, x, y, zero } = forecastLines(lines, { from, until, width: inner, height: plot });
  svg.append(el('line', { x1: pad, x2: pad + inner, y1: zero + pad, y2: zero + pad, class: 'forecast-zero' }));
  lines.forEach((l, i) => {
    const g = el('g', { class: `forecast-account slice-${i % 6}`, 'data-account': l.id });
    g.append(el('polyline', { class: 'forecast-line', fill: 'none', points: steps[i].map(([px, py]) => `${px + pad},${py + pad}`).join(' ') }));
    const balanceOn = (date) => [...l.points].reverse().find((p) => p.date <= date)?.balance ?? l.points[0].balance;
    for (const date of l.marks) {
      const dot = el('circle', { class: 'forecast-debit', cx: x(date) + pad, cy: y(balanceOn(date)) + pad, r: 4, 'data-date': date });
      dot.append(el('title', {}, `${l.name}: ${date} 引き落とし（${yen(balanceOn(date))}）`));
      g.append(dot);
    }
    if (l.shortfall) {
      const ring = el('circle', { class: 'forecast-shortfall', cx: x(l.shortfall) + pad, cy: y(balanceOn(l.shortfall)) + pad, r: 7, fill: 'none', 'data-date': l.shortfall });
      ring.append(el('title', {}, `${l.name}: ${l.shortfall} 残高不足の見込み`));
      g.append(ring);
    }
    svg.append(g);
  });
  const base = plot + 2 * pad;
  svg.append(
    el('text', { x: pad, y: base + 12, class: 'chart-value' }, `${Number(from.slice(5, 7))}/${Number(from.slice(8, 10))}`),
    el('text', { x: width - pad, y: base + 12, 'text-anchor': 'end', class: 'chart-value' }, `${Number(until.slice(5, 7))}/${Number(until.slice(8, 10))}`),
  );
  lines.forEach((l, i) => {
    const lx = pad + (i % 2) * (width / 2);
    const ly = base + 16 + 20 * Math.floor(i / 2) + 12;
    svg.append(
      el('rect', { x: lx, y: ly - 9, width: 12, height: 4, class: `slice-${i % 6} swatch` }),
      el('text', { x: lx + 18, y: ly, class: 'chart-label' }, shorten(l.name, 12)),
    );
  });
  return svg;
}

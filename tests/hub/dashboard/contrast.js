/* For the dashboard's browser tests (page.evaluate): every piece of text on a camel's colour
 * (chips, tickets, dice, buttons, the odds bars' labels) and every camel's letter, with its
 * contrast ratio against what is behind it by WCAG 2's formula: [{what, ratio}, ...]. A bar's
 * fill lies beside its label in the tree, not under it: it counts where it reaches the label. */
(() => {
  const parse = (c) => { const m = /rgba?\(([^)]+)\)/.exec(c || ''); if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const chain = (n) => { const out = []; for (; n && n.nodeType === 1; n = n.parentElement) out.unshift(n); return out; };
  const behind = (n) => { let c = [255, 255, 255, 1];
    for (const a of chain(n)) { const b = parse(getComputedStyle(a).backgroundColor); if (b && b[3] > 0) c = over(b, c); }
    return c; };
  const opacity = (n) => chain(n).reduce((o, a) => o * +getComputedStyle(a).opacity, 1);
  const ownBg = (n) => { const b = parse(getComputedStyle(n).backgroundColor); return b && b[3] >= 1; };
  const out = [];
  const seen = (n) => n.getClientRects().length && getComputedStyle(n).visibility !== 'hidden';
  for (const n of document.querySelectorAll('[class*="c-"], [class*="c-"] *, .pbar b')) {
    if (!seen(n) || n.closest('svg')) continue;
    const text = [...n.childNodes].filter((t) => t.nodeType === 3).map((t) => t.textContent).join('').trim();
    if (!text) continue;
    const ink = parse(getComputedStyle(n).color);
    const grounds = [behind(n)];
    // a bar's fill lies beside its label, not under it in the tree: count it where it reaches
    const bar = n.closest('.pbar');
    if (bar && !ownBg(n)) {
      const fill = bar.querySelector('i'), f = fill.getBoundingClientRect(), r = n.getBoundingClientRect();
      if (f.right > r.left + 1 && f.width > 0) grounds.push(over(parse(getComputedStyle(fill).backgroundColor), behind(bar)));
    }
    for (const g of grounds) {
      const shown = over([...ink.slice(0, 3), ink[3] * opacity(n)], g);
      out.push({ what: `${n.tagName.toLowerCase()}.${String(n.className).replace(/ +/g, '.')} "${text}"`,
                 ratio: ratio(shown, g) });
    }
  }
  for (const c of document.querySelectorAll('.camel')) {
    if (!seen(c)) continue;
    const t = c.querySelector('text'), p = c.querySelector('path');
    const hex = (h) => { const x = h.replace('#', ''); const f = x.length === 3 ? [...x].map((d) => d + d).join('') : x;
      return [0, 2, 4].map((i) => parseInt(f.slice(i, i + 2), 16)).concat([1]); };
    out.push({ what: `camel ${c.dataset.colour} letter`, ratio: ratio(hex(t.getAttribute('fill')), hex(p.getAttribute('fill'))) });
  }
  return out;
})

"""Accessibility checks run in the page: WCAG AA text contrast, keyboard reachability with a
visible focus indicator, and accessible names from the browser's accessibility tree.
"""

from __future__ import annotations

import re
from typing import Any

# Every visible piece of text, against the background it is drawn on (ancestors' background
# colours composited, ancestors' opacity applied): the ones below WCAG AA (4.5:1, or 3:1 for
# large text). Disabled controls are exempt, as WCAG says.
CONTRAST = r"""
(root) => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (!a) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat(a);
  };
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const page = parse(getComputedStyle(document.documentElement).backgroundColor);
  const base = over(page[3] ? page : [255, 255, 255, 1], [255, 255, 255, 1]);
  const background = (el) => {
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c[3]) layers.push(c);
      if (c[3] === 1) break;
    }
    return layers.reverse().reduce((acc, c) => over(c, acc), base);
  };
  const opacity = (el) => {
    let o = 1;
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
    return o;
  };
  const failures = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.textContent.trim()) continue;
    const el = t.parentElement;
    if (!el || seen.has(el)) continue;
    seen.add(el);
    if (el.closest("[disabled], [aria-disabled=true], .visually-hidden, option, script, style, noscript")) continue;
    if (!el.checkVisibility({ opacityProperty: false, visibilityProperty: true })) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    const style = getComputedStyle(el);
    const bg = background(el);
    let fg = parse(style.color);
    fg = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
    const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5) - 0.01)
      failures.push(`${ratio.toFixed(2)} ${el.tagName.toLowerCase()}.${el.className} "${t.textContent.trim().slice(0, 30)}"`);
  }
  return failures;
}
"""

# Marks every visible, enabled control in `root` that the Tab key should reach.
MARK_CONTROLS = r"""
(root) => {
  const selector = "a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1'])";
  let n = 0;
  for (const el of root.querySelectorAll(selector)) {
    if (el.disabled || el.tabIndex < 0 || el.type === "hidden") continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    el.dataset.a11y = String(n++);
  }
  return n;
}
"""

# The focused control's mark, and whether its focus indicator is visible.
FOCUSED = r"""
() => {
  const el = document.activeElement;
  if (!el || el === document.body) return [null, false];
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 1;
  const shadow = style.boxShadow !== "none";
  return [el.dataset.a11y ?? null, outline || shadow];
}
"""

UNNAMED = re.compile(
    r"^\s*- (button|link|textbox|combobox|checkbox|searchbox|tab|menuitem|option|listbox|dialog"
    r"|radio|slider|spinbutton|switch)(:|\s*$| \[)"
)


def unnamed_controls(snapshot: str) -> list[str]:
    """Lines of an ARIA snapshot naming a control without an accessible name."""
    return [line.strip() for line in snapshot.splitlines() if UNNAMED.match(line)]


def contrast_failures(page: Any, selector: str = "body") -> list[str]:
    return list(page.locator(selector).first.evaluate(CONTRAST))


def tab_through(page: Any, selector: str) -> tuple[int, set[str], list[str]]:
    """Tabs through the controls of `selector`: how many there are, those not reached, and
    those reached with no visible focus indicator."""
    count = int(page.locator(selector).first.evaluate(MARK_CONTROLS))
    reached: set[str] = set()
    invisible: list[str] = []
    for _ in range(count * 2 + 5):
        page.keyboard.press("Tab")
        mark, visible = page.evaluate(FOCUSED)
        if mark is None:
            continue
        if not visible:
            invisible.append(
                str(page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)"))
            )
        reached.add(mark)
        if len(reached) == count:
            break
    missing = {str(i) for i in range(count)} - reached
    described = [
        str(page.locator(f'[data-a11y="{m}"]').evaluate("e => e.outerHTML.slice(0, 120)"))
        for m in sorted(missing)
    ]
    return count, set(described), invisible

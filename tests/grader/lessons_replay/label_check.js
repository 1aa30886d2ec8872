// label_check.js: appended (in a <script>) to a copy of timeline.html by test_timeline.sh, run by
// headless Chromium, which dumps the DOM with the result in <body data-label-check="JSON">.
// Measures the rendered text, not the grader's estimate of it: every text of the timeline and of
// the per-range bars lies inside its picture (nothing cut at the right edge); a label inside a box
// stays inside it, one beside it lies wholly left or right of it; no label covers another box or another
// label; a range's name stays left of the bars. Counts, per variant, the GPU boxes without a label.
(function () {
  const problems = [], unnamed = {}, boxes_by_variant = {};
  const eps = 0.5;
  const meets = (a, b) => a.x < b.x + b.width - eps && b.x < a.x + a.width - eps &&
                          a.y < b.y + b.height - eps && b.y < a.y + a.height - eps;
  for (const svg of document.querySelectorAll("svg.timeline, svg.bars")) {
    const section = svg.closest("section.variant");
    const v = section ? section.getAttribute("data-variant") : "?";
    const vb = svg.viewBox.baseVal;
    const rects = [...svg.querySelectorAll("g.work > rect, g.range > rect, g.api > rect")];
    const labels = [];
    const firstBar = svg.querySelector("rect.bar-wall");
    for (const t of svg.querySelectorAll("text")) {
      const text = t.textContent.trim();
      if (!text) continue;
      const b = t.getBBox();
      if (b.x < vb.x - eps || b.x + b.width > vb.x + vb.width + eps)
        problems.push(`${v}: '${text}' runs past the picture (${b.x.toFixed(1)} to ${(b.x + b.width).toFixed(1)} of ${vb.width})`);
      if (firstBar && t.classList.contains("lane-title") && b.x + b.width > firstBar.getBBox().x + eps)
        problems.push(`${v}: the range name '${text}' runs into the bars`);
      if (!t.classList.contains("box-label")) continue;
      const own = t.parentNode.querySelector(":scope > rect").getBBox();
      if (t.classList.contains("outside-label")) {
        if (b.x < own.x + own.width - eps && b.x + b.width > own.x + eps)
          problems.push(`${v}: the label '${text}' beside its box runs into it`);
      } else if (b.x < own.x - eps || b.x + b.width > own.x + own.width + eps) {
        problems.push(`${v}: the label '${text}' overflows its box (${b.width.toFixed(1)} wide in ${own.width.toFixed(1)})`);
      }
      for (const r of rects)
        if (r.parentNode !== t.parentNode && meets(b, r.getBBox()))
          problems.push(`${v}: the label '${text}' covers the box of ${r.parentNode.getAttribute("data-name")}`);
      for (const [other, ob] of labels)
        if (meets(b, ob)) problems.push(`${v}: the labels '${text}' and '${other}' overlap`);
      labels.push([text, b]);
    }
  }
  for (const g of document.querySelectorAll("section.variant g.work")) {
    const v = g.closest("section.variant").getAttribute("data-variant");
    boxes_by_variant[v] = (boxes_by_variant[v] || 0) + 1;
    const label = g.querySelector("text.box-label");
    if (!label || !label.textContent.trim()) unnamed[v] = (unnamed[v] || 0) + 1;
  }
  document.body.setAttribute("data-label-check", JSON.stringify({problems, unnamed, boxes: boxes_by_variant}));
})();

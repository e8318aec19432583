/**
 * Runs in every page a script opens (an init script), so the harness can report the same page
 * metrics as a BROWSER check: TTFB from the navigation entry, FCP, LCP, CLS (largest session
 * window: gaps under 1 s, at most 5 s) and TBT (long tasks after FCP, beyond 50 ms each).
 * Plain JavaScript in a string because it is evaluated in the page, not in Node.
 */
export const PAGE_METRICS_SCRIPT = `(() => {
  if (window.__vigilPageMetrics) return;
  const state = { fcp: undefined, lcp: undefined, shifts: [], tasks: [] };
  const live = [];
  const watch = (type, take) => {
    try {
      const observer = new PerformanceObserver((list) => list.getEntries().forEach(take));
      observer.observe({ type, buffered: true });
      live.push([observer, take]);
    } catch (e) {}
  };
  watch('paint', (e) => { if (e.name === 'first-contentful-paint') state.fcp = e.startTime; });
  watch('largest-contentful-paint', (e) => { state.lcp = e.renderTime || e.loadTime || e.startTime; });
  watch('layout-shift', (e) => { if (!e.hadRecentInput) state.shifts.push([e.startTime, e.value]); });
  watch('longtask', (e) => state.tasks.push([e.startTime, e.duration]));
  Object.defineProperty(window, '__vigilPageMetrics', {
    enumerable: false,
    value: () => {
      for (const [observer, take] of live) observer.takeRecords().forEach(take);
      let cls = 0, session = 0, sessionStart = -Infinity, previous = -Infinity;
      for (const [at, value] of state.shifts.slice().sort((a, b) => a[0] - b[0])) {
        if (at - previous > 1000 || at - sessionStart > 5000) { session = 0; sessionStart = at; }
        session += value;
        previous = at;
        if (session > cls) cls = session;
      }
      const from = state.fcp === undefined ? 0 : state.fcp;
      let tbt = 0;
      for (const [start, duration] of state.tasks) if (start >= from && duration > 50) tbt += duration - 50;
      const navigation = performance.getEntriesByType('navigation')[0];
      return { TTFB: navigation ? navigation.responseStart : undefined, FCP: state.fcp, LCP: state.lcp, CLS: cls, TBT: tbt };
    },
  });
})();`;

/**
 * Runs in every frame before the page's own scripts (an init script): WebRTC removed, and performance observers that
 * keep what the observation reports. CLS follows the Core Web Vitals definition: the largest session window of
 * layout shifts without recent input (gaps under 1 s, windows up to 5 s). Plain JavaScript, as the browser runs it.
 */
export const PAGE_PROBE_SCRIPT = `(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCSessionDescription', 'RTCIceCandidate']) {
    try { Object.defineProperty(window, name, { value: undefined, configurable: false, writable: false }); } catch {}
  }
  try { if (navigator.mediaDevices) Object.defineProperty(navigator, 'mediaDevices', { value: undefined }); } catch {}
  if (window !== window.top) return;
  const m = { lcp: null, lcpElement: null, cls: 0, longTaskMs: 0, longTasks: 0 };
  let windowValue = 0, windowStart = 0, lastShift = 0;
  Object.defineProperty(window, '__aduanaProbe', { value: m, enumerable: false });
  const observe = (type, onEntry) => {
    try { new PerformanceObserver((list) => list.getEntries().forEach(onEntry)).observe({ type, buffered: true }); } catch {}
  };
  observe('largest-contentful-paint', (e) => {
    m.lcp = e.startTime;
    const el = e.element;
    m.lcpElement = { tag: el ? el.tagName.toLowerCase() : null, url: e.url || null, size: e.size };
  });
  observe('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    if (windowValue > 0 && e.startTime - lastShift < 1000 && e.startTime - windowStart < 5000) windowValue += e.value;
    else { windowValue = e.value; windowStart = e.startTime; }
    lastShift = e.startTime;
    if (windowValue > m.cls) m.cls = windowValue;
  });
  observe('longtask', (e) => { m.longTasks += 1; m.longTaskMs += e.duration; });
})();`;

/** Read after the page settled: the observers' values plus navigation and paint timing. */
export const READ_METRICS_SCRIPT = `(() => {
  const m = window.__aduanaProbe || { lcp: null, lcpElement: null, cls: 0, longTaskMs: 0, longTasks: 0 };
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return {
    ttfb: nav ? nav.responseStart : null,
    fcp: fcp ? fcp.startTime : null,
    domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
    load: nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : null,
    lcp: m.lcp, lcpElement: m.lcpElement, cls: m.cls, longTaskMs: m.longTaskMs, longTasks: m.longTasks,
  };
})()`;

import type { PublicStatusPage } from './public-status.ts';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STATE_TEXT: Record<PublicStatusPage['state'], string> = {
  operational: 'All systems operational',
  degraded: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  maintenance: 'Under maintenance',
  unknown: 'No data yet',
};
const CHECK_TEXT = {
  passing: 'Operational',
  degraded: 'Degraded',
  failing: 'Down',
  maintenance: 'Maintenance',
  unknown: 'No data',
};

function dayClass(availability: number | null): string {
  if (availability === null) return 'none';
  if (availability >= 99.9) return 'ok';
  return availability >= 95 ? 'warn' : 'bad';
}

/**
 * The public page, rendered on the server: no script, no key, works without the console bundle,
 * and costs one string build per cache period. Everything user-written is escaped.
 */
export function renderStatusHtml(page: PublicStatusPage): string {
  const checks = page.checks
    .map((check) => {
      const bar = check.days
        .map((d) => {
          // The title is the hover text and the item's accessible name; 90 × checks items keep the page small.
          return `<li class="${dayClass(d.availability)}" title="${d.date}: ${d.availability === null ? 'no data' : `${d.availability}%`}"></li>`;
        })
        .join('');
      const uptime = check.uptime90d === null ? 'no data' : `${check.uptime90d}% uptime`;
      return `<section class="check"><h2><span class="dot ${check.state}" aria-hidden="true"></span>${escapeHtml(check.name)}<span class="state">${CHECK_TEXT[check.state]}</span></h2>
<ol class="bar" aria-label="90-day uptime of ${escapeHtml(check.name)}: ${uptime}">${bar}</ol><p class="legend"><span>90 days ago</span><span>${uptime}</span><span>Today</span></p></section>`;
    })
    .join('\n');
  const incidents =
    page.incidents.length === 0
      ? '<p>No incidents reported.</p>'
      : `<ul class="incidents">${page.incidents
          .map(
            (i) =>
              `<li><time datetime="${i.at}">${i.at.slice(0, 16).replace('T', ' ')} UTC</time> <strong>${escapeHtml(i.check)}</strong> ${i.kind === 'recovered' ? 'recovered' : i.kind === 'degraded' ? 'was degraded' : 'went down'}</li>`,
          )
          .join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} status</title>
<style>
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--card:#f6f8fa;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--none:#8c959f}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--card:#161b22;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--none:#484f58}}
body{margin:0;font:15px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
main{max-width:860px;margin:0 auto;padding:24px 16px}
.banner{padding:16px;border-radius:8px;font-weight:600;color:#fff;background:var(--ok)}
.banner.degraded{background:#7d4e00}.banner.partial_outage,.banner.major_outage{background:#a40e26}.banner.unknown{background:#57606a}.banner.maintenance{background:#0a5fb4}
.check{background:var(--card);border-radius:8px;padding:12px 16px;margin:16px 0}
.check h2{font-size:16px;margin:0 0 8px;display:flex;align-items:center;gap:8px}.state{margin-left:auto;font-weight:400;color:var(--muted)}
.dot{width:10px;height:10px;border-radius:50%;background:var(--none)}.dot.passing{background:var(--ok)}.dot.degraded{background:var(--warn)}.dot.failing{background:var(--bad)}.dot.maintenance{background:#0a5fb4}
.bar{display:flex;gap:2px;list-style:none;margin:0;padding:0;height:28px}.bar li{flex:1;border-radius:2px;background:var(--none)}
.bar .ok{background:var(--ok)}.bar .warn{background:var(--warn)}.bar .bad{background:var(--bad)}
.legend{display:flex;justify-content:space-between;color:var(--muted);font-size:12px;margin:4px 0 0}
.incidents{padding-left:18px}time{color:var(--muted)}
</style></head>
<body><main>
<h1>${escapeHtml(page.title)}</h1>
${page.description ? `<p>${escapeHtml(page.description)}</p>` : ''}
<p class="banner ${page.state}" role="status">${STATE_TEXT[page.state]}</p>
${checks}
<h2>Recent incidents</h2>
${incidents}
<p class="legend"><span>Updated ${page.updatedAt.slice(0, 19).replace('T', ' ')} UTC</span><span>Powered by Vigil</span></p>
</main></body></html>`;
}

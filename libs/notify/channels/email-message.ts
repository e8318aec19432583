import { escapeHtml, facts, type AlertSummary } from './summary.ts';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const accents = { failure: '#d93f3f', degraded: '#e5a50a', ssl: '#e5a50a', recovery: '#2e9b48' } as const;

/** A readable alert email: the same words as the other channels, as HTML and as plain text. */
export function emailMessage(to: string, summary: AlertSummary): EmailMessage {
  const list = facts(summary);
  const text = [
    summary.title,
    '',
    summary.what,
    '',
    ...list.map(([label, value]) => `${label}: ${value}`),
    '',
    `View result: ${summary.link}`,
    '',
    '-- ',
    'Sent by Vigil. Change which alerts this address gets in the alert channel settings.',
  ].join('\n');
  const rows = list
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding:4px 12px 4px 0;color:#555;font-weight:600;vertical-align:top">${escapeHtml(label)}</th>` +
        `<td style="padding:4px 0;white-space:pre-wrap">${escapeHtml(value)}</td></tr>`,
    )
    .join('');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(summary.title)}</title></head>
<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#222;margin:0;padding:24px">
<div style="max-width:600px;border-top:4px solid ${accents[summary.kind]};padding-top:12px">
<h1 style="font-size:20px;margin:0 0 8px">${escapeHtml(summary.title)}</h1>
<p style="margin:0 0 16px">${escapeHtml(summary.what)}</p>
<table style="border-collapse:collapse;font-size:14px">${rows}</table>
<p style="margin:20px 0"><a href="${escapeHtml(summary.link)}" style="background:#2457c5;color:#fff;padding:8px 14px;border-radius:4px;text-decoration:none">View result</a></p>
<p style="font-size:12px;color:#777">Sent by Vigil. Change which alerts this address gets in the alert channel settings.</p>
</div></body></html>`;
  return { to, subject: summary.title, text, html };
}

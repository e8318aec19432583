import { useEffect, useState } from 'preact/hooks';

/** The URL holds every page's state (filters, range, open run), so any view is a deep link. */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event('vigil:navigate'));
}

export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(location.href));
  useEffect(() => {
    const update = () => setUrl(new URL(location.href));
    window.addEventListener('popstate', update);
    window.addEventListener('vigil:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('vigil:navigate', update);
    };
  }, []);
  return url;
}

/** Sets query parameters on the current URL (empty values are dropped) without a history entry per keystroke. */
export function setQuery(values: Record<string, string | null | undefined>, replace = true): void {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === undefined || v === '') url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  navigate(url.pathname + url.search, replace);
}

export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const regex = new RegExp(
    `^${pattern.replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  const found = regex.exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]));
}

/** Intercepts clicks on same-origin links so they navigate without a reload. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor || anchor.target || anchor.origin !== location.origin || anchor.hasAttribute('download')) return;
  if (anchor.pathname.startsWith('/status/') || anchor.pathname.startsWith('/docs')) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}

import { useEffect, useState } from 'preact/hooks';
import { canWrite, saveSession, session } from './api.ts';
import { match, navigate, onLinkClick, useLocation } from './router.ts';
import { setTheme, themeChoice, type ThemeChoice } from './theme.ts';
import { LoginPage } from './pages/login.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { CheckPage } from './pages/check.tsx';
import { EditorPage } from './pages/editor.tsx';
import { ChannelsPage, ChannelPage } from './pages/channels.tsx';
import { VariablesPage } from './pages/variables.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { StatusPagesPage } from './pages/status-pages.tsx';
import { MaintenancePage } from './pages/maintenance.tsx';
import { MaintenanceWindowPage } from './pages/maintenance-form.tsx';

const NAV = [
  ['/', 'Checks'],
  ['/alert-channels', 'Alert channels'],
  ['/maintenance', 'Maintenance'],
  ['/variables', 'Variables'],
  ['/status-pages', 'Status pages'],
  ['/settings', 'Settings'],
] as const;

function Page({ path }: { path: string }) {
  let params: Record<string, string> | null;
  if (path === '/' || path === '/checks') return <OverviewPage />;
  if (match('/checks/new', path)) return <EditorPage />;
  if ((params = match('/checks/:id/edit', path))) return <EditorPage checkId={params.id} />;
  if ((params = match('/checks/:id/results/:resultId', path)))
    return <CheckPage checkId={params.id!} runId={params.resultId!} />;
  if ((params = match('/checks/:id', path))) return <CheckPage checkId={params.id!} />;
  if (match('/alert-channels/new', path)) return <ChannelPage />;
  if ((params = match('/alert-channels/:id', path))) return <ChannelPage channelId={params.id} />;
  if (path === '/alert-channels') return <ChannelsPage />;
  if (match('/maintenance/new', path)) return <MaintenanceWindowPage />;
  if ((params = match('/maintenance/:id', path))) return <MaintenanceWindowPage windowId={params.id} />;
  if (path === '/maintenance') return <MaintenancePage />;
  if (path === '/variables') return <VariablesPage />;
  if (path === '/settings') return <SettingsPage />;
  if (path === '/status-pages') return <StatusPagesPage />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{path}</code>. <a href="/">Back to checks</a>
      </p>
    </>
  );
}

export function App() {
  const url = useLocation();
  const [, setSignedIn] = useState(0);
  const [theme, setChoice] = useState<ThemeChoice>(themeChoice());
  useEffect(() => {
    const out = () => setSignedIn((n) => n + 1);
    window.addEventListener('vigil:signed-out', out);
    return () => window.removeEventListener('vigil:signed-out', out);
  }, []);
  const s = session();
  const path = url.pathname;
  useEffect(() => {
    // Run links and deep links land here without a key: sign in first, then come back.
    if (!s && path !== '/login') navigate(`/login?next=${encodeURIComponent(path + url.search)}`, true);
  }, [s, path, url.search]);
  if (path === '/login' || !s) return <LoginPage />;
  const section = NAV.filter(([href]) =>
    href === '/' ? path === '/' || path.startsWith('/checks') : path.startsWith(href),
  );
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <nav class="side" aria-label="Main">
        <a class="brand" href="/">
          Vigil
        </a>
        {NAV.map(([href, label]) => (
          <a class="item" href={href} aria-current={section[0]?.[0] === href ? 'page' : undefined} key={href}>
            {label}
          </a>
        ))}
        <div class="foot">
          <span title={s.accountId}>
            {s.accountName} · {s.role}
            {canWrite(s) ? '' : ' (read-only)'}
          </span>
          <label class="inline">
            <span class="sr-only">Theme</span>
            <select
              aria-label="Theme"
              value={theme}
              onChange={(e) => {
                const choice = (e.target as HTMLSelectElement).value as ThemeChoice;
                setTheme(choice);
                setChoice(choice);
              }}
            >
              <option value="system">System theme</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          <button
            onClick={() => {
              saveSession(null);
              navigate('/login');
            }}
          >
            Sign out
          </button>
        </div>
      </nav>
      <main id="content" tabIndex={-1}>
        <Page path={path} />
      </main>
    </div>
  );
}

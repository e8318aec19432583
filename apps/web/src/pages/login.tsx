import { useState } from 'preact/hooks';
import { ApiError, raw, saveSession } from '../api.ts';
import type { Account, Session } from '../api.gen.ts';
import { navigate, useLocation } from '../router.ts';

/** Paste a key, pick an account; the key is kept in sessionStorage only (gone when the tab closes). */
export function LoginPage() {
  const url = useLocation();
  const [key, setKey] = useState('');
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [accountId, setAccountId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const next = url.searchParams.get('next');

  const lookUp = async () => {
    setError(null);
    setBusy(true);
    try {
      const found = (await raw('GET', '/v1/accounts', { key: key.trim() })).body as Account[];
      setAccounts(found);
      if (found.length === 1) await signIn(found[0]!.id);
      else if (found.length === 0) setError('This key has no account.');
      else setAccountId(found[0]!.id);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? 'Unknown API key.' : (e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const signIn = async (id: string) => {
    const me = (await raw('GET', '/v1/session', { key: key.trim(), accountId: id })).body as Session;
    saveSession({ key: key.trim(), accountId: me.accountId, accountName: me.accountName, role: me.role });
    navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', true);
  };

  return (
    <main class="login" id="content">
      <h1>Sign in to Vigil</h1>
      <form
        class="grid"
        onSubmit={(e) => {
          e.preventDefault();
          if (accounts && accounts.length > 1) void signIn(accountId).catch((err: Error) => setError(err.message));
          else void lookUp();
        }}
      >
        <label>
          API key
          <input
            name="apiKey"
            type="password"
            autoComplete="off"
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
            placeholder="vgl_…"
            required
          />
        </label>
        {accounts && accounts.length > 1 && (
          <label>
            Account
            <select
              name="account"
              value={accountId}
              onChange={(e) => setAccountId((e.target as HTMLSelectElement).value)}
            >
              {accounts.map((a) => (
                <option value={a.id} key={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {error && (
          <p class="error-box" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy}>
          {accounts && accounts.length > 1 ? 'Open account' : 'Sign in'}
        </button>
        <p class="muted">The key stays in this browser tab only (sessionStorage) and is sent with each API call.</p>
      </form>
    </main>
  );
}

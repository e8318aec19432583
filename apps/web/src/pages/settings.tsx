import { useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { call, canWrite, session } from '../api.ts';
import { useAsync } from '../hooks.ts';

/** API keys (a new key is shown once, with a copy button) and the account's users with their roles. */
export function SettingsPage() {
  const keys = useAsync(() => call('GET /v1/api-keys'), []);
  const users = useAsync(() => call('GET /v1/users'), []);
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const s = session();
  return (
    <>
      <h1>Settings</h1>
      <h2>API keys</h2>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            const key = await call('POST /v1/api-keys', { body: { name: name || 'console', type: 'user' } });
            setIssued(key.key);
            setName('');
            keys.reload();
          } catch (err) {
            setError((err as ApiError).message);
          }
        }}
      >
        <input
          aria-label="New key name"
          placeholder="Key name"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Create key</button>
      </form>
      {error && (
        <p class="error-box" role="alert">
          {error}
        </p>
      )}
      {issued && (
        <div class="card" role="status">
          <p>
            <strong>Copy this key now; it will not be shown again.</strong>
          </p>
          <div class="row">
            <code class="block" data-testid="new-key">
              {issued}
            </code>
            <button onClick={() => void navigator.clipboard.writeText(issued).catch(() => undefined)}>Copy</button>
          </div>
        </div>
      )}
      <table aria-label="API keys">
        <thead>
          <tr>
            <th>Name</th>
            <th>Type</th>
            <th>Role</th>
            <th>Ends with</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>{k.type}</td>
              <td>
                {/* A user key has no role of its own: it acts with its user's role, which is not
                    the viewer's when someone else made the key. */}
                {k.role ?? <span title="A user key acts with the role its user holds in each account">its user's</span>}
              </td>
              <td>
                <code>…{k.last4}</code>
              </td>
              <td>{new Date(k.createdAt).toLocaleDateString()}</td>
              <td>
                <button
                  class="danger"
                  onClick={async () => {
                    if (confirm(`Revoke ${k.name}?`)) {
                      await call('DELETE /v1/api-keys/{id}', { params: { id: k.id } });
                      keys.reload();
                    }
                  }}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Users</h2>
      <table aria-label="Users">
        <thead>
          <tr>
            <th>Email</th>
            <th>Role</th>
          </tr>
        </thead>
        <tbody>
          {(users.data ?? []).map((u) => (
            <tr key={u.id}>
              <td>{u.email}</td>
              <td>{u.role}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!canWrite(s) && <p class="muted">Your role is read-only: you can look, not change.</p>}
    </>
  );
}

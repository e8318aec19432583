import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createSecretBox } from '#core';
import { AGENT_LOCATIONS_KEY, DeliveryStore, Dispatcher, LocationWatch } from '#notify';
import { PrivateLocationReads, ReadModels } from '#readmodels';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';
import { startAgent, type Agent } from '../../apps/runner/index.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.ts';

// Issue 24: a private location without agents alerts the account's channels once per outage
// (ALERT_LOCATION_UNAVAILABLE) and once when an agent returns (ALERT_LOCATION_RECOVERY), through
// the real dispatcher app, every channel type rendering it; and exactly once across restarts.
const smtpPassword = 'loc/smtp pass';
// Well above the 2 s at which the API writes an agent's presence, so a polling agent never looks dark.
const WINDOW_MS = 5_000;
const log = createLogger({ level: 'silent' });

describe('private location alerts', () => {
  let vigil: TestVigil;
  let smtp: SmtpReceiver;
  let hooks: Receiver;
  const agents: Agent[] = [];
  beforeAll(async () => {
    smtp = await startSmtpReceiver({ user: 'vigil', password: smtpPassword });
    hooks = await startReceiver(() => 200);
    vigil = await startVigil({
      env: {
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS: String(WINDOW_MS),
        VIGIL_SMTP_URL: `smtp://vigil:${encodeURIComponent(smtpPassword)}@127.0.0.1:${smtp.port}`,
        VIGIL_PAGERDUTY_EVENTS_URL: `${hooks.url}/pagerduty`,
      },
    });
  }, 60_000);
  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await vigil?.stop();
    await smtp?.close();
    await hooks?.close();
  });

  async function location(owner: ApiClient, slugName: string) {
    const created = await owner.post('/v1/private-locations', { name: `Office ${slugName}`, slugName });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = await owner.post(`/v1/private-locations/${created.body.id}/keys`);
    return { id: created.body.id as string, key: key.body.rawKey as string };
  }

  const channel = async (owner: ApiClient, body: Record<string, unknown>) => {
    const created = await owner.post('/v1/alert-channels', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };

  const agent = (key: string) => {
    const started = startAgent({
      log,
      settings: {
        apiUrl: vigil.url,
        key,
        concurrency: 2,
        allowPrivate: true,
        pollWaitMs: 500,
        version: 'test',
        drainMs: 500,
      },
    });
    agents.push(started);
    return started;
  };

  const status = async (owner: ApiClient, id: string) =>
    (await owner.get(`/v1/private-locations/${id}`)).body.status as string;

  it('alerts every channel type once when the location goes dark, and once when an agent returns', async () => {
    const { owner } = await createAccount(vigil);
    const lab = await location(owner, 'alert-lab');
    const address = `admins+${Date.now()}@example.com`;
    await channel(owner, { type: 'WEBHOOK', config: { name: 'hook', url: `${hooks.url}/hook/${lab.id}` } });
    await channel(owner, { type: 'EMAIL', config: { name: 'mail', address } });
    await channel(owner, { type: 'SLACK', config: { name: 's', url: `${hooks.url}/slack/${lab.id}` } });
    await channel(owner, { type: 'PAGERDUTY', config: { name: 'pd', serviceKey: 'a'.repeat(32) } });
    // A channel that sends neither failures nor recoveries is not one to alert.
    await channel(owner, {
      type: 'WEBHOOK',
      config: { name: 'quiet', url: `${hooks.url}/quiet/${lab.id}` },
      sendFailure: false,
      sendRecovery: false,
    });
    // Another account's channel hears nothing of this location.
    const other = await createAccount(vigil);
    await channel(other.owner, { type: 'WEBHOOK', config: { name: 'x', url: `${hooks.url}/other/${lab.id}` } });

    const hook = () => hooks.received.filter((r) => r.url === `/hook/${lab.id}`);
    const slack = () => hooks.received.filter((r) => r.url === `/slack/${lab.id}`);
    const pagerDuty = () => hooks.received.filter((r) => r.url === '/pagerduty' && r.body.includes(lab.id));
    const mails = () => smtp.mails.filter((mail) => mail.to.includes(address));
    const counts = () => [hook().length, mails().length, slack().length, pagerDuty().length];

    // A location no agent ever polled does not alert (it was never up).
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 1_000));
    expect(counts()).toEqual([0, 0, 0, 0]);

    const first = agent(lab.key);
    await eventually(
      () => status(owner, lab.id),
      (s) => s === 'AVAILABLE',
      10_000,
    );
    await first.stop();
    await eventually(
      async () => counts(),
      (n) => n.every((c) => c >= 1),
      20_000,
    );
    // Several watch intervals later, still one each: once per outage, not per look.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    expect(counts()).toEqual([1, 1, 1, 1]);

    const body = JSON.parse(hook()[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      ALERT_TYPE: 'ALERT_LOCATION_UNAVAILABLE',
      ALERT_TITLE: 'Private location "Office alert-lab" is unavailable',
      CHECK_TYPE: 'PRIVATE_LOCATION',
      LOCATION_ID: lab.id,
      LOCATION_SLUG: 'alert-lab',
      LOCATION_NAME: 'Office alert-lab',
    });
    expect(Date.parse(String(body.LOCATION_LAST_SEEN))).toBeGreaterThan(0);
    expect(mails()[0]!.parsed.subject).toBe('Private location "Office alert-lab" is unavailable');
    expect(mails()[0]!.parsed.text).toContain('Private location: Office alert-lab');
    expect(JSON.parse(slack()[0]!.body).text).toMatch(/^Private location "Office alert-lab" is unavailable: No agent/);
    expect(JSON.parse(pagerDuty()[0]!.body)).toMatchObject({ event_action: 'trigger', dedup_key: `vigil-${lab.id}` });

    agent(lab.key);
    await eventually(
      async () => counts(),
      (n) => n.every((c) => c >= 2),
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    expect(counts()).toEqual([2, 2, 2, 2]);
    expect(JSON.parse(hook()[1]!.body)).toMatchObject({ ALERT_TYPE: 'ALERT_LOCATION_RECOVERY', LOCATION_ID: lab.id });
    expect(mails()[1]!.parsed.subject).toBe('Private location "Office alert-lab" is available again');
    expect(JSON.parse(pagerDuty()[1]!.body)).toMatchObject({ event_action: 'resolve', dedup_key: `vigil-${lab.id}` });
    expect(hooks.received.filter((r) => r.url === `/quiet/${lab.id}` || r.url === `/other/${lab.id}`)).toEqual([]);

    // The delivery log shows them as any delivery (checkId holds the location's id).
    const channels = (await owner.get('/v1/alert-channels')).body as { id: string; config: { name: string } }[];
    const hookId = channels.find((c) => c.config.name === 'hook')!.id;
    const logged = (await owner.get(`/v1/alert-channels/${hookId}/deliveries`)).body as Record<string, unknown>[];
    expect(logged.map((e) => [e.alertType, e.checkId, e.outcome])).toEqual(
      expect.arrayContaining([
        ['ALERT_LOCATION_UNAVAILABLE', lab.id, 'delivered'],
        ['ALERT_LOCATION_RECOVERY', lab.id, 'delivered'],
      ]),
    );
  }, 90_000);

  it('sends each alert once although a watcher dies after delivering and before remembering the outage', async () => {
    const store = vigil.running.platform.stateStore;
    // The app's own watch stands aside: this test decides when the watch looks.
    await store.set('location-watch:lock', 'test', { ttlMs: 60_000 });
    // A look it began before is over by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    try {
      const { owner } = await createAccount(vigil);
      const lab = await location(owner, 'restart-lab');
      await channel(owner, { type: 'WEBHOOK', config: { name: 'hook', url: `${hooks.url}/restart/${lab.id}` } });
      const mine = () => hooks.received.filter((r) => r.url === `/restart/${lab.id}`).map((r) => JSON.parse(r.body));
      const t0 = Date.now();
      const watchAt = (now: number) => {
        // A fresh dispatcher and watch each time: what a restarted process has.
        const locations = new PrivateLocationReads(store);
        const dispatcher = new Dispatcher({
          readModels: new ReadModels(store),
          store: new DeliveryStore(store),
          // The channel has no secret to open.
          box: createSecretBox(Buffer.alloc(32, 1)),
          log,
          timeoutMs: 2_000,
          retry: { maxRetries: 1, delayMs: 100 },
          allowPrivate: true,
          userAgent: 'Vigil/test',
          publicUrl: vigil.url,
          region: 'local',
          locations,
        });
        return new LocationWatch({
          store,
          locations,
          deliver: (alerts) => dispatcher.handleLocationAlerts(alerts),
          unavailableAfterMs: 600_000,
          log,
          clock: () => now,
        });
      };
      const outageKey = `location-outage:${lab.id}`;
      await store.write([{ op: 'zadd', key: AGENT_LOCATIONS_KEY, member: lab.id, score: t0 }]);
      // The watch looks at every location (the first test's too): only this one's alerts are compared.
      const tick = async (now: number) =>
        (await watchAt(now).tick()).filter((a) => a.locationId === lab.id).map((a) => a.alertType);
      expect(await tick(t0 + 60_000)).toEqual([]);

      const dark = t0 + 600_001;
      expect(await tick(dark)).toEqual(['ALERT_LOCATION_UNAVAILABLE']);
      // Died before remembering the outage: the next watcher decides the same alert; nothing goes out again.
      await store.del(outageKey);
      expect(await tick(dark + 1_000)).toEqual(['ALERT_LOCATION_UNAVAILABLE']);
      expect(await tick(dark + 2_000)).toEqual([]);
      expect(mine().map((b) => b.ALERT_TYPE)).toEqual(['ALERT_LOCATION_UNAVAILABLE']);

      // An agent polls again; the recovery is decided twice (a death before forgetting the outage), sent once.
      await store.write([{ op: 'zadd', key: AGENT_LOCATIONS_KEY, member: lab.id, score: dark + 3_000 }]);
      expect(await tick(dark + 4_000)).toEqual(['ALERT_LOCATION_RECOVERY']);
      await store.set(outageKey, String(t0));
      expect(await tick(dark + 5_000)).toEqual(['ALERT_LOCATION_RECOVERY']);
      expect(await tick(dark + 6_000)).toEqual([]);
      expect(mine().map((b) => b.ALERT_TYPE)).toEqual(['ALERT_LOCATION_UNAVAILABLE', 'ALERT_LOCATION_RECOVERY']);

      // A deleted location leaves the watch.
      expect((await owner.delete(`/v1/private-locations/${lab.id}`)).status).toBe(204);
      expect(await store.zscore(AGENT_LOCATIONS_KEY, lab.id)).toBeNull();
    } finally {
      await store.del('location-watch:lock');
    }
  }, 60_000);
});

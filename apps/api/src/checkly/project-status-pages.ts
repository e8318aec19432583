import { z } from 'zod';
import { ValidationError } from '#core';
import type { StatusPageInput } from '#domain';
import { markers } from '#project-markers';
import type { Access } from '../access.ts';
import type { StatusPageService } from '../console/status-page-service.ts';

/**
 * A project's status pages (`StatusPage`, with its cards of `StatusPageService`s). A Vigil page is
 * one list of checks, so a page takes one card, and a service stands for the checks whose
 * `triggerIncident` names it (Vigil shows their state; it opens no incidents). The page's `url`
 * is its slug; the marker ends its title: `Acme status [vigil:website/status]`.
 */

export interface PagePlan {
  pages: Array<{ logicalId: string; input: Omit<StatusPageInput, 'checkIds'>; checkRefs: string[]; id?: string }>;
  deletePages: Array<{ id: string; logicalId: string }>;
  services: string[];
}

type Resource = { logicalId: string; type: string; payload: unknown };

const ref = z.object({ ref: z.string().max(256) });
const pagePayload = z.strictObject({
  name: z.string().max(2048),
  url: z.string().max(253),
  customDomain: z.string().max(253).nullish(),
  logo: z.string().max(2048).nullish(),
  redirectTo: z.string().max(2048).nullish(),
  favicon: z.string().max(2048).nullish(),
  defaultTheme: z.string().max(16).nullish(),
  cards: z.array(z.strictObject({ name: z.string().max(2048), services: z.array(ref).max(100).nullish() })).max(50),
  version: z.number().int().nullish(),
});
const servicePayload = z.strictObject({ name: z.string().max(2048) });

/** A check's `triggerIncident`: which service of the project it stands for on a page. */
export const incidentTrigger = z.strictObject({
  serviceId: ref,
  severity: z.string().max(16).nullish(),
  name: z.string().max(2048).nullish(),
  description: z.string().max(10_000).nullish(),
  notifySubscribers: z.boolean().nullish(),
});

export const pageTypes = new Set(['status-page', 'status-page-service']);
const MAX_TITLE = 120;

/**
 * Plans the pages; `serviceOf` maps each check logical id to the service its triggerIncident names.
 * `triggers` has been checked to name services of this project.
 */
export async function planPages(
  pages: StatusPageService,
  access: Access,
  project: string,
  resources: Resource[],
  serviceOf: Map<string, string>,
  refused: string[],
): Promise<PagePlan> {
  const owned = new Map<string, { id: string }>();
  for (const page of await pages.list(access)) {
    const marker = markers.parseMarkedName(page.title);
    if (marker?.project === project) owned.set(marker.logicalId, page);
  }
  const plan: PagePlan = { pages: [], deletePages: [], services: [] };
  for (const resource of resources) {
    try {
      if (resource.type === 'status-page-service') {
        const parsed = servicePayload.safeParse(resource.payload);
        if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
        plan.services.push(resource.logicalId);
        continue;
      }
      const version = (resource.payload as { version?: unknown } | null)?.version;
      if (version)
        throw new ValidationError(
          `version: Vigil maps Checkly's StatusPage (cards and services), not v${String(version)}`,
        );
      const parsed = pagePayload.safeParse(resource.payload);
      if (!parsed.success) throw new ValidationError(z.prettifyError(parsed.error));
      const body = parsed.data;
      const why: string[] = [];
      if (body.logo) why.push("logo: Vigil's status pages show no logo");
      if (body.favicon) why.push("favicon: Vigil's status pages show no favicon");
      if (body.redirectTo) why.push('redirectTo: not supported by Vigil');
      if (body.defaultTheme && body.defaultTheme !== 'AUTO')
        why.push("defaultTheme: Vigil's status pages follow the reader's theme (AUTO)");
      if (body.cards.length > 1) why.push('cards: a Vigil status page is one list of checks; give one card');
      const card = body.cards[0];
      if (card && card.name !== body.name)
        why.push(`cards[0].name: Vigil shows the list under the page's name; name the card "${body.name}"`);
      const checkRefs: string[] = [];
      for (const [index, service] of (card?.services ?? []).entries()) {
        if (!resources.some((r) => r.type === 'status-page-service' && r.logicalId === service.ref))
          why.push(`cards[0].services[${index}]: "${service.ref}" is not a status page service of this project`);
        for (const [check, serviceRef] of serviceOf) if (serviceRef === service.ref) checkRefs.push(check);
      }
      // Trimmed as Vigil stores titles, so an unchanged page compares equal.
      const title = markers.markedName(body.name.trim(), project, resource.logicalId);
      if (title.length > MAX_TITLE)
        why.push(`name: with the project marker it is over ${MAX_TITLE} characters; shorten it or the logicalId`);
      if (why.length > 0) throw new ValidationError(why.join('; '));
      plan.pages.push({
        logicalId: resource.logicalId,
        input: { slug: body.url, title, description: '', customDomain: body.customDomain || null },
        checkRefs: [...new Set(checkRefs)],
        id: owned.get(resource.logicalId)?.id,
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      refused.push(`${resource.type} "${resource.logicalId}": ${error.message}`);
    }
  }
  const declared = new Set(resources.filter((r) => r.type === 'status-page').map((r) => r.logicalId));
  for (const [logicalId, page] of owned)
    if (!declared.has(logicalId)) plan.deletePages.push({ id: page.id, logicalId });
  return plan;
}

/**
 * Writes the pages once the checks exist (`checks`: logical id → Vigil id; in a dry run only the
 * checks that already existed). A page is left alone when it already reads as declared.
 */
export async function applyPages(
  pages: StatusPageService,
  access: Access,
  plan: PagePlan,
  checks: Map<string, string>,
  dry: boolean,
): Promise<void> {
  for (const page of plan.pages) {
    const input = { ...page.input, checkIds: page.checkRefs.flatMap((r) => (checks.has(r) ? [checks.get(r)!] : [])) };
    if (!page.id) {
      page.id = (await pages.create(access, input)).id;
      continue;
    }
    const current = await pages.get(access, page.id);
    const same =
      current.slug === input.slug &&
      current.title === input.title &&
      current.description === input.description &&
      current.customDomain === input.customDomain &&
      current.checkIds.join() === input.checkIds.join();
    // A dry run lacks the checks this deploy creates: it decides the update without them.
    if (!same || dry) await pages.update(access, page.id, input);
  }
  for (const page of plan.deletePages)
    if (dry) await pages.get(access, page.id);
    else await pages.delete(access, page.id);
}

export function pageDiff(plan: PagePlan) {
  return [
    ...plan.pages.map((p) => ({
      type: 'status-page' as const,
      logicalId: p.logicalId,
      physicalId: p.id ?? null,
      action: p.id ? ('UPDATE' as const) : ('CREATE' as const),
    })),
    ...plan.deletePages.map((p) => ({
      type: 'status-page' as const,
      logicalId: p.logicalId,
      physicalId: p.id,
      action: 'DELETE' as const,
    })),
  ];
}

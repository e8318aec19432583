import type { Command } from 'commander';
import type { z } from 'zod';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { collect, defined, readJsonObject } from '../input.ts';
import { example } from '../kit.ts';
import { statusPageSchema } from '../schemas.ts';

type Page = z.infer<typeof statusPageSchema> & Record<string, unknown>;
const path = (id: string) => `/v1/status-pages/${encodeURIComponent(id)}`;

interface PageOptions {
  slug?: string;
  title?: string;
  description?: string;
  check?: string[];
  /** false from --no-domain (update only): the page loses its custom domain. */
  domain?: string | false;
  data?: string;
}

/** The fields PUT and POST take: the API refuses any other, `id` included. */
const INPUT_FIELDS = ['slug', 'title', 'description', 'checkIds', 'customDomain'] as const;

function fieldOptions(command: Command): Command {
  return command
    .option('--slug <slug>', 'the public address, /status/<slug>: lower-case letters, digits and hyphens')
    .option('--title <title>', 'the heading of the page')
    .option('--description <text>', 'a line under the heading')
    .option('--check <checkId>', 'a check shown on the page; repeat or separate with commas', collect)
    .option('--domain <host>', 'a custom domain that serves the page, e.g. status.acme.com')
    .option('--data <json>', 'the whole body as JSON, @file or - (standard input)');
}

function fieldsFrom(options: PageOptions): Record<string, unknown> {
  return defined({
    slug: options.slug,
    title: options.title,
    description: options.description,
    checkIds: options.check,
    customDomain: options.domain === false ? null : options.domain,
  });
}

function publicUrl(baseUrl: string, page: Page): string {
  return `${baseUrl}/status/${page.slug}`;
}

export function registerStatusPages(program: Command): void {
  const pages = program.command('status-pages').description('public status pages: which checks /status/<slug> shows');
  example(pages, 'vigil status-pages ls', 'vigil status-pages create --slug acme --title "Acme status" --check 0b8c…');

  const ls = pages
    .command('ls')
    .description('list the status pages of the account')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      // The route answers the whole list (an account has few pages): no paging to do.
      const list = (await client.json(statusPageSchema.array(), 'GET', '/v1/status-pages')) as Page[];
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'ID', value: (p) => p.id },
          { header: 'SLUG', value: (p) => p.slug },
          { header: 'TITLE', value: (p) => p.title },
          { header: 'CHECKS', value: (p) => p.checkIds.length },
          { header: 'URL', value: (p) => publicUrl(client.baseUrl, p) },
        ]),
      );
    });
  example(ls, 'vigil status-pages ls');

  const get = pages
    .command('get')
    .description('show one status page')
    .argument('<pageId>', 'status page id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      const page = (await client.get(statusPageSchema, path(id))) as Page;
      ctx.out.result(page, () => ctx.out.record([...Object.entries(page), ['url', publicUrl(client.baseUrl, page)]]));
    });
  example(get, 'vigil status-pages get 5e2f…');

  const create = fieldOptions(pages.command('create'))
    .description('create a status page; flags override the fields of --data')
    .action(async (options: PageOptions, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      const body: Record<string, unknown> = {
        checkIds: [],
        ...(await readJsonObject(options.data)),
        ...fieldsFrom(options),
      };
      if (body.slug === undefined || body.title === undefined)
        throw new UsageError('A status page needs --slug and --title (or both in --data)');
      const created = (await client.json(statusPageSchema, 'POST', '/v1/status-pages', { body })) as Page;
      ctx.out.result(created, () =>
        ctx.out.print(`Created status page ${created.title}: ${created.id} (${publicUrl(client.baseUrl, created)})`),
      );
    });
  example(
    create,
    'vigil status-pages create --slug acme --title "Acme status" --check 0b8c…,7f3a…',
    'vigil status-pages create --data @status-page.json',
  );

  const update = fieldOptions(pages.command('update'))
    .description('change a status page: the fields given replace those it has, the rest stay')
    .argument('<pageId>', 'status page id')
    .option('--no-domain', 'serve the page on no custom domain')
    .action(async (id: string, options: PageOptions, command: Command) => {
      const ctx = contextOf(command);
      const client = ctx.client();
      // The route is a PUT (a full replacement): start from the page as it is, keeping only the
      // fields the route takes, so a flag changes one field and nothing else is lost.
      const current = (await client.get(statusPageSchema, path(id))) as Page;
      const kept = Object.fromEntries(INPUT_FIELDS.filter((f) => f in current).map((f) => [f, current[f]]));
      const changes = { ...(await readJsonObject(options.data)), ...fieldsFrom(options) };
      if (Object.keys(changes).length === 0) throw new UsageError('Nothing to change: give a flag or --data');
      const updated = (await client.json(statusPageSchema, 'PUT', path(id), {
        body: { ...kept, ...changes },
      })) as Page;
      ctx.out.result(updated, () => ctx.out.print(`Updated status page ${updated.title}: ${updated.id}`));
    });
  example(update, 'vigil status-pages update 5e2f… --title "Acme platform status" --check 0b8c…');

  const rm = pages
    .command('delete')
    .alias('rm')
    .description('delete a status page; its slug becomes free')
    .argument('<pageId>', 'status page id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', path(id));
      ctx.out.result({ deleted: id }, () => ctx.out.print(`Deleted status page ${id}`));
    });
  example(rm, 'vigil status-pages delete 5e2f…');
}

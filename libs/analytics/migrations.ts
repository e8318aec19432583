import { InternalError, type Logger } from '#core';

/** A numbered schema change. Statements must be idempotent (IF NOT EXISTS): two processes may start at once. */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

export interface MigrationTarget {
  /** Creates schema_migrations if needed and returns the versions recorded there. */
  applied(): Promise<number[]>;
  /** Runs the statements, then records the version. */
  apply(migration: Migration): Promise<void>;
}

export async function runMigrations(
  target: MigrationTarget,
  migrations: readonly Migration[],
  log: Logger,
): Promise<void> {
  assertOrdered(migrations);
  const applied = new Set(await target.applied());
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    await target.apply(migration);
    log.info({ version: migration.version, migration: migration.name }, 'analytics migration applied');
  }
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, position) => {
    if (migration.version !== position + 1) {
      throw new InternalError(
        `analytics migration ${migration.name} has version ${migration.version}, expected ${position + 1}`,
      );
    }
  });
}

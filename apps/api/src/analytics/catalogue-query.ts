import { ValidationError } from '#core';
import {
  catalogue,
  catalogueCheckTypes,
  catalogueGroups,
  metricCategories,
  type CatalogueCheckType,
  type CatalogueGroup,
  type GuidelineBand,
  type MetricCategory,
  type MetricEntry,
} from './catalogue.ts';

export interface CatalogueOptions {
  category: MetricCategory | null;
  format: 'detailed' | 'summary';
  /** Default true: the thresholds are the point of the Core Web Vitals entries. */
  includeThresholds: boolean;
  includeExamples: boolean;
  includeCalculations: boolean;
}

export type MetricDefinition = Partial<Omit<MetricEntry, 'analytics' | 'example' | 'formula' | 'guidelines'>> & {
  name: string;
  displayName: string;
  unit: string;
  guidelines?: readonly GuidelineBand[];
  analyticsMetric?: string;
  example?: { value: number; formatted: string };
  calculation?: { method: string; formula: string };
};

export interface CatalogueAnswer {
  data: Record<CatalogueGroup, MetricDefinition[]>;
  meta: { totalMetrics: number; categories: string[]; checkTypes: string[] };
}

export function parseCheckType(value: string): CatalogueCheckType {
  if (!(catalogueCheckTypes as readonly string[]).includes(value)) {
    throw new ValidationError(
      `checkType: "${value}" is not a check type; use one of ${catalogueCheckTypes.join(', ')}`,
    );
  }
  return value as CatalogueCheckType;
}

export function parseCatalogueOptions(query: Record<string, unknown>): CatalogueOptions {
  const category = one(query, 'category');
  if (category !== undefined && !(metricCategories as readonly string[]).includes(category)) {
    throw new ValidationError(`category: "${category}" is not a category; use one of ${metricCategories.join(', ')}`);
  }
  const format = one(query, 'format') ?? 'detailed';
  if (format !== 'detailed' && format !== 'summary')
    throw new ValidationError(`format: must be detailed or summary, got "${format}"`);
  return {
    category: (category as MetricCategory | undefined) ?? null,
    format,
    includeThresholds: flag(query, 'includeThresholds', true),
    includeExamples: flag(query, 'includeExamples', false),
    includeCalculations: flag(query, 'includeCalculations', false),
  };
}

/** The catalogue for one check type: the definitions available for it, filtered and shaped. */
export function catalogueFor(checkType: CatalogueCheckType, options: CatalogueOptions): CatalogueAnswer {
  const data = Object.fromEntries(
    catalogueGroups.map((group) => [
      group,
      catalogue[group]
        .filter(
          (entry) =>
            entry.availableFor.includes(checkType) &&
            (options.category === null || entry.category === options.category),
        )
        .map((entry) => definition(entry, checkType, options)),
    ]),
  ) as Record<CatalogueGroup, MetricDefinition[]>;
  const returned = catalogueGroups.flatMap((group) => data[group]);
  const categories = metricCategories.filter((category) => returned.some((entry) => entry.category === category));
  return { data, meta: { totalMetrics: returned.length, categories, checkTypes: [...catalogueCheckTypes] } };
}

function definition(entry: MetricEntry, checkType: CatalogueCheckType, options: CatalogueOptions): MetricDefinition {
  const { analytics, example, formula, guidelines, goodThreshold, needsImprovementThreshold, ...fields } = entry;
  const out: MetricDefinition =
    options.format === 'summary'
      ? { name: entry.name, displayName: entry.displayName, unit: entry.unit, category: entry.category }
      : { ...fields };
  const analyticsMetric = analytics?.(checkType);
  if (options.format === 'detailed' && analyticsMetric !== undefined) out.analyticsMetric = analyticsMetric;
  if (options.includeThresholds) {
    if (goodThreshold !== undefined) out.goodThreshold = goodThreshold;
    if (needsImprovementThreshold !== undefined) out.needsImprovementThreshold = needsImprovementThreshold;
    if (guidelines !== undefined) out.guidelines = guidelines;
  }
  if (options.includeExamples) out.example = { value: example, formatted: formatted(example, entry) };
  if (options.includeCalculations) out.calculation = { method: entry.calculationMethod, formula };
  return out;
}

const unitSuffix: Record<MetricEntry['unit'], string> = {
  milliseconds: ' ms',
  seconds: ' s',
  percentage: '%',
  count: '',
  score: '',
};

function formatted(value: number, entry: MetricEntry): string {
  return `${value.toFixed(entry.precision)}${unitSuffix[entry.unit]}`;
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ValidationError(`${name}: give it once`);
  return value;
}

function flag(query: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = one(query, name);
  if (value === undefined) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ValidationError(`${name}: must be true or false, got "${value}"`);
}

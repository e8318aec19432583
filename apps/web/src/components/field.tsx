import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api.ts';

/** A labelled control that shows the API's message when that message names this field. */
export function Field(props: { label: string; name: string; error: ApiError | null; children: ComponentChildren }) {
  const field = props.error?.field ?? null;
  const mine =
    field !== null &&
    (field === props.name || field.startsWith(`${props.name}.`) || field.startsWith(`${props.name}[`));
  return (
    <label data-field={props.name}>
      {props.label}
      {props.children}
      {mine && (
        <span class="field-error" role="alert" id={`err-${props.name}`}>
          {props.error!.message}
        </span>
      )}
    </label>
  );
}

export function errorOutsideFields(error: ApiError | null, names: string[]): string | null {
  if (!error) return null;
  const field = error.field;
  if (field && names.some((n) => field === n || field.startsWith(`${n}.`) || field.startsWith(`${n}[`))) return null;
  return error.message;
}

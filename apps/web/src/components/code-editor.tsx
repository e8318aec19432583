import { useEffect, useRef, useState } from 'preact/hooks';
import type { Mounted } from '../script-editor/codemirror.ts';

/**
 * A code editor for check scripts. CodeMirror is loaded on first use (a separate chunk), so the
 * console's main bundle does not carry it; until it arrives, and if it fails to load, a plain
 * textarea edits the same text.
 */
export function CodeEditor(props: {
  value: string;
  onChange: (text: string) => void;
  label: string;
  name: string;
  variables?: readonly string[];
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Mounted | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let cancelled = false;
    import('../script-editor/codemirror.ts').then(
      ({ mount }) => {
        if (cancelled || !host.current) return;
        editor.current = mount(host.current, {
          doc: latest.current.value,
          label: latest.current.label,
          onChange: (text) => latest.current.onChange(text),
          variables: () => latest.current.variables ?? [],
        });
        setState('ready');
      },
      () => !cancelled && setState('failed'),
    );
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);
  useEffect(() => editor.current?.setText(props.value), [props.value]);
  return (
    <div class="code-editor" data-editor={state} data-name={props.name}>
      <div ref={host} hidden={state !== 'ready'} />
      {state !== 'ready' && (
        <textarea
          name={props.name}
          aria-label={props.label}
          rows={16}
          spellcheck={false}
          value={props.value}
          onInput={(e) => props.onChange((e.target as HTMLTextAreaElement).value)}
        />
      )}
      {state === 'failed' && <p class="muted">The code editor did not load; this plain text box edits the script.</p>}
    </div>
  );
}

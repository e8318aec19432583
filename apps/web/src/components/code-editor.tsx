import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
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
  // A text set from outside (a check loaded, "Start from the example") goes into the editor in the
  // commit of the render that carries it. Not in a useEffect: that runs after the next paint, and
  // Preact runs a pending one just before the component renders again. Two edits inside one frame
  // (Delete then a paste) would then hand the editor the text of the first edit after it already
  // holds the second: setText(old) reports old through onChange, the render that follows runs the
  // effect still pending with the new text, and so on forever, in microtasks, hanging the tab.
  // In the commit, props.value is what the editor itself last reported, or a text from outside.
  useLayoutEffect(() => editor.current?.setText(props.value), [props.value]);
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

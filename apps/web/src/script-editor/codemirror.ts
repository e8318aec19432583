/**
 * CodeMirror 6 for check scripts. Only components/code-editor.tsx imports this, and only with a
 * dynamic import(), so the editor is a chunk of its own that pages without a script never load.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import {
  bracketMatching,
  defaultHighlightStyle,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { readable } from './colors.ts';
import { hintsAt } from './hints.ts';

export interface MountOptions {
  doc: string;
  label: string;
  onChange: (text: string) => void;
  /** The check's variable names, offered after `process.env.`. */
  variables: () => readonly string[];
  readOnly?: boolean;
}

export interface Mounted {
  /** Replaces the text when it was changed from outside (a check loaded, a template picked). */
  setText(text: string): void;
  destroy(): void;
}

const palette = (theme: 'light' | 'dark') =>
  HighlightStyle.define(
    defaultHighlightStyle.specs.map((spec) =>
      typeof spec.color === 'string' ? { ...spec, color: readable(spec.color, theme) } : spec,
    ),
    { themeType: theme },
  );
const LIGHT = palette('light');
const DARK = palette('dark');

const frame = EditorView.theme({
  '&': { border: '1px solid var(--border)', borderRadius: '6px', background: 'var(--bg)', color: 'var(--fg)' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, monospace', fontSize: '13px', minHeight: '240px', maxHeight: '60vh' },
  '.cm-gutters': { background: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine, .cm-activeLineGutter': { background: 'color-mix(in srgb, var(--accent) 8%, transparent)' },
  '.cm-content': { caretColor: 'var(--fg)' },
  '.cm-tooltip': { background: 'var(--panel)', color: 'var(--fg)', border: '1px solid var(--border)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { background: 'var(--accent)', color: 'var(--accent-fg)' },
  '.cm-completionDetail': { color: 'inherit', opacity: '0.85' },
});

const isDark = () => document.documentElement.dataset.theme === 'dark';
const darkness = (dark: boolean) => EditorView.theme({}, { dark });

export function mount(parent: HTMLElement, options: MountOptions): Mounted {
  const theme = new Compartment();
  const complete = (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const found = hintsAt(line.text.slice(0, context.pos - line.from), options.variables());
    if (!found || (found.typed === 0 && !context.explicit && !/\.$/.test(line.text.slice(0, context.pos - line.from))))
      return null;
    return { from: context.pos - found.typed, options: found.options, validFor: /^[\w$]*$/ };
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        javascript({ typescript: true }),
        syntaxHighlighting(LIGHT),
        syntaxHighlighting(DARK),
        autocompletion({ override: [complete], activateOnTyping: true }),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, indentWithTab]),
        frame,
        theme.of(darkness(isDark())),
        EditorState.readOnly.of(options.readOnly === true),
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  // The console switches theme by setting data-theme on <html>; the editor follows it.
  const observer = new MutationObserver(() => view.dispatch({ effects: theme.reconfigure(darkness(isDark())) }));
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return {
    setText(text) {
      const current = view.state.doc.toString();
      if (text !== current) view.dispatch({ changes: { from: 0, to: current.length, insert: text } });
    },
    destroy() {
      observer.disconnect();
      view.destroy();
    },
  };
}

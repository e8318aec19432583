import { Argument, type Command } from 'commander';
import { example } from '../kit.ts';

/** Every command path with its subcommands and options, read from the command tree itself. */
function tree(command: Command, prefix: string[] = []): Array<{ path: string[]; words: string[] }> {
  const words = [
    ...command.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]),
    ...command.options.map((option) => option.long ?? option.short ?? '').filter(Boolean),
  ];
  return [{ path: prefix, words }, ...command.commands.flatMap((sub) => tree(sub, [...prefix, sub.name()]))];
}

function bash(program: Command): string {
  const cases = tree(program)
    .map(({ path, words }) => `    "${path.join(' ')}") words="${words.join(' ')}" ;;`)
    .join('\n');
  return `# vigil completion for bash: eval "$(vigil completion bash)"
_vigil() {
  local cur path="" w i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    path="\${path:+$path }$w"
  done
  local words=""
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _vigil vigil
`;
}

function zsh(program: Command): string {
  return `#compdef vigil
# vigil completion for zsh: eval "$(vigil completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(program)}`;
}

function fish(program: Command): string {
  const lines = tree(program).flatMap(({ path, words }) => {
    const condition =
      path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${path[path.length - 1]}`;
    return words.map((word) =>
      word.startsWith('--')
        ? `complete -c vigil -n '${condition}' -l ${word.slice(2)}`
        : `complete -c vigil -f -n '${condition}' -a ${word}`,
    );
  });
  return `# vigil completion for fish: vigil completion fish | source\n${lines.join('\n')}\n`;
}

export function registerCompletion(program: Command): void {
  const completion = program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action((shell: string) => {
      const script = shell === 'bash' ? bash(program) : shell === 'zsh' ? zsh(program) : fish(program);
      process.stdout.write(script);
    });
  example(
    completion,
    'eval "$(vigil completion bash)"     # add to ~/.bashrc',
    'eval "$(vigil completion zsh)"      # add to ~/.zshrc',
    'vigil completion fish > ~/.config/fish/completions/vigil.fish',
  );
}

import { execFileSync, spawnSync } from 'node:child_process';
import { BIN } from './cli.js';

/** Whether tmux is installed: the pseudo-terminal tests need it. */
export const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** A command running in a real pseudo-terminal (a detached tmux session on its own server socket). */
export interface Terminal {
  /** The screen as text (no colours). */
  screen(): string;
  /** Resolves with the screen once `pattern` appears on it; rejects after timeoutMs with the screen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Types text literally (no key names). */
  type(text: string): void;
  /** Presses keys by tmux name: Enter, Up, C-c… */
  press(...keys: string[]): void;
  close(): void;
}

let sessions = 0;

/**
 * Runs `svc <args>` (the built CLI) in a 120×40 tmux pseudo-terminal in `cwd`. When the command
 * ends, the pane shows `[exit N]` and stays until closed.
 */
export function svcInTerminal(args: string[], options: { cwd: string; env?: Record<string, string> }): Terminal {
  const socket = `svc-test-${process.pid}-${++sessions}`;
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const env = Object.entries({ NO_COLOR: '1', ...options.env })
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(' ');
  const command = `env ${env} ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}; echo "[exit $?]"; sleep 600`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // -f /dev/null: no user configuration, so the test sees tmux's defaults.
  execFileSync('tmux', ['-f', '/dev/null', '-L', socket, 'new-session', '-d', '-s', 'svc', '-x', '120', '-y', '40', '-c', options.cwd, command]);
  const screen = () => tmux('capture-pane', '-t', 'svc', '-p');
  return {
    screen,
    async waitFor(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${text}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    type: (text) => void tmux('send-keys', '-t', 'svc', '-l', text),
    press: (...keys) => void tmux('send-keys', '-t', 'svc', ...keys),
    close: () => {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}

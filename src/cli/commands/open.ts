import { spawn } from 'node:child_process';
import { connect, controlPlane } from '../service.js';
import type { Handler } from '../spec.js';
import type { openSpec } from './top.js';

/**
 * `svc open`: the dashboard of the emulator the other commands use (CONTRACT §10). Opens it with the
 * platform's opener (`SVC_BROWSER` names another command, `none` opens nothing); off a terminal, or
 * when nothing can be opened, it prints the URL, which is what a script or an SSH session needs.
 */
export const openCommand: Handler<typeof openSpec> = async (_input, ctx) => {
  const { client, target } = await connect(ctx);
  await controlPlane(ctx, target, 'Finding the emulator', client.getHealth({ timeoutMs: 3000 }));
  const url = `${target.baseUrl}/__emulator/ui/`;
  // SVC_BROWSER names the command (empty or `none`: open nothing); otherwise the platform's opener, on a terminal only.
  const chosen = ctx.env.SVC_BROWSER;
  const opener = chosen ?? (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const wanted = chosen !== undefined ? chosen !== '' && chosen !== 'none' : ctx.interactive;
  const opened = wanted ? await launch(opener, url) : false;
  const data = { url, opened };
  return { data, human: (c) => (opened ? `${c.green('opened')} ${url}` : url) };
};

function launch(command: string, url: string): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn(command, [url], { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

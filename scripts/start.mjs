// `npm start`, after scripts/setup.sh: serves the app and the API on one port.
// KSCOPE_PORT picks the port (default 8000); the server binds 127.0.0.1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.KSCOPE_PORT ?? '8000';
console.error(`kscope: serving on http://127.0.0.1:${port} (Ctrl-C to stop)`);
const server = spawn(path.join(root, '.venv/bin/kscope'), ['serve', '--port', port], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

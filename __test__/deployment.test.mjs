// The deployment recipe (deploy/Containerfile, deploy/kubernetes/, docs/deployment.md) held to
// the service it deploys. No image can be built here (no container runtime), so the test lays
// out the image's filesystem as the Containerfile builds it (helpers/containerfile.mjs: its
// COPY, the build stage's kindgi-index, `npm ci` standing as a copy of this package's published
// files) and starts the service exactly as the image's CMD does: that argv from that WORKDIR,
// with the image's ENV and user and the env the Kubernetes Deployment adds. Then the probes the
// Deployment names, one call, and SIGTERM's drain within the budgets of the Deployment and
// Cloud Run, once with node as PID 1 of its own PID namespace, as in a container.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { native } from '../lib/native.js';
import { PACK_SERVICE_DRAIN_MS } from '../lib/pack-service.js';
import { ignoreMatcher, layOutImage, parseContainerfile } from './helpers/containerfile.mjs';
import { onLines } from './helpers/lines.mjs';
import { packFolder } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const deploy = join(repo, 'deploy');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
/** Cloud Run's time from SIGTERM to SIGKILL. */
const CLOUD_RUN_GRACE_MS = 10_000;
const TOKEN = 'deployment-test-token';

const stages = parseContainerfile(readFileSync(join(deploy, 'Containerfile'), 'utf8'));
const ignored = ignoreMatcher(readFileSync(join(deploy, '.dockerignore'), 'utf8'));

/** Every document of deploy/kubernetes/*.yaml, with the file it came from. */
function manifests() {
  const dir = join(deploy, 'kubernetes');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) => loadAll(readFileSync(join(dir, file), 'utf8')).map((doc) => ({ file, doc })));
}

function only(docs, kind) {
  const found = docs.filter(({ doc }) => doc.kind === kind);
  assert.equal(found.length, 1, `one ${kind} in deploy/kubernetes`);
  return found[0].doc;
}

const docs = manifests();
const deployment = only(docs, 'Deployment');
const podSpec = deployment.spec.template.spec;
const container = podSpec.containers[0];

/** How long the service has from SIGTERM to the kubelet's SIGKILL: the grace less the preStop sleep. */
function kubernetesBudgetMs() {
  const preStop = container.lifecycle?.preStop?.exec?.command;
  const sleep = preStop === undefined ? 0 : Number(/^sleep$/.test(preStop[0]) ? preStop[1] : NaN);
  assert.ok(Number.isFinite(sleep), `preStop ${JSON.stringify(preStop)}: a sleep of some seconds`);
  return (podSpec.terminationGracePeriodSeconds - sleep) * 1000;
}

/** The variables the Deployment gives the container: literal values, and the token from its Secret. */
function deploymentEnv() {
  const env = {};
  for (const entry of container.env ?? []) {
    if (entry.valueFrom?.secretKeyRef) {
      assert.equal(entry.name, 'KINDGI_PACK_SERVICE_TOKEN', `${entry.name} from a Secret: only the token is`);
      env[entry.name] = TOKEN;
    } else {
      env[entry.name] = entry.value;
    }
  }
  return env;
}

/** The files `npm pack` puts in this package's tarball (its `files` globs expanded, package.json). */
function packedFiles() {
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  return JSON.parse(packed.stdout)[0].files.map((file) => file.path);
}

/** `npm ci` in the image: this package as npm would install it (its `files`, package.json, and the addon a platform package carries). */
function install(dir) {
  const target = join(dir, 'node_modules', ...pkg.name.split('/'));
  mkdirSync(target, { recursive: true });
  for (const entry of packedFiles()) cpSync(join(repo, entry), join(target, entry), { recursive: true });
  const addons = readdirSync(repo).filter((f) => /^handler-runtime-native\..+\.node$/.test(f));
  assert.ok(addons.length > 0, 'a built addon beside package.json');
  for (const addon of addons) cpSync(join(repo, addon), join(target, addon));
}

/**
 * The image, laid out from a user's pack repository: the fixture pack's modules and config,
 * a package.json that depends on this package, and what a developer's checkout also holds and
 * .dockerignore must keep out (a host node_modules whose service would exit 3, an .env, a
 * stale index.json).
 */
function layImage() {
  const context = packFolder('kindgi-deploy-context-');
  const pack = join(here, 'fixtures', 'js-pack');
  for (const entry of readdirSync(pack)) if (entry !== 'index.json') cpSync(join(pack, entry), join(context, entry), { recursive: true });
  const dependencies = { [pkg.name]: pkg.version };
  writeFileSync(join(context, 'package.json'), JSON.stringify({ name: 'my-pack', private: true, type: 'module', dependencies }, null, 2));
  writeFileSync(
    join(context, 'package-lock.json'),
    JSON.stringify({ name: 'my-pack', lockfileVersion: 3, requires: true, packages: { '': { name: 'my-pack', dependencies } } }, null, 2),
  );
  const hostBin = join(context, 'node_modules', ...pkg.name.split('/'), 'bin');
  mkdirSync(hostBin, { recursive: true });
  writeFileSync(join(hostBin, 'kindgi-pack-service.mjs'), 'process.exit(3);\n');
  writeFileSync(join(context, '.env'), 'SECRET=from-the-host\n');
  writeFileSync(join(context, 'index.json'), '{"stale": true}\n');

  const root = packFolder('kindgi-deploy-image-');
  // As in an image: every user may read it, only root may write it.
  chmodSync(root, 0o755);
  const image = layOutImage(stages, { root, context, ignored, install });
  assert.ok(!existsSync(join(image.workdir, '.env')), 'the host .env stays out of the image');
  assert.equal(JSON.parse(readFileSync(join(image.workdir, 'index.json'), 'utf8')).packId, 'fixture', 'the index is the build stage one');
  return image;
}

/** A TCP port free on every interface now (the CMD gives no --host: the service binds them all). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject).listen(0, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Nodes the image's user can run, by uid. */
const nodesForUser = new Map();

/**
 * A Node binary `uid` can run, of this process's version: this process's own where that user may
 * run it, else a copy in a folder every user may read (as an image's node in /usr/local/bin is).
 * A Node installed under a folder only its owner may enter (a cache in root's home) is not.
 */
function nodeForUser(uid, gid) {
  if (!nodesForUser.has(uid)) {
    let node = process.execPath;
    if (spawnSync(node, ['--version'], { uid, gid, stdio: 'ignore' }).status !== 0) {
      const dir = packFolder('kindgi-deploy-node-');
      chmodSync(dir, 0o755);
      node = join(dir, 'node');
      copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
    }
    nodesForUser.set(uid, node);
  }
  return nodesForUser.get(uid);
}

/**
 * Starts the image's CMD from its WORKDIR with its ENV, the Deployment's env and PORT, as the
 * image's user when this process may switch to it; `wrap` goes before it (unshare). Resolves
 * once the service wrote `listening`. `signal` (the test's) kills it when the test times out:
 * a failing test never leaves it running.
 */
async function startAsTheImage(image, { wrap = [], signal } = {}) {
  const [command, ...args] = image.cmd;
  assert.equal(command, 'node');
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const env = { PATH: process.env.PATH, ...image.env, ...deploymentEnv(), PORT: String(port) };
    const [uid, gid] = (image.user ?? '').split(':').map(Number);
    const asUser = wrap.length === 0 && process.getuid?.() === 0 && Number.isInteger(uid) ? { uid, gid: Number.isInteger(gid) ? gid : uid } : {};
    const node = asUser.uid === undefined ? process.execPath : nodeForUser(asUser.uid, asUser.gid);
    const argv = [...wrap, node, ...args];
    const child = spawn(argv[0], argv.slice(1), { cwd: image.workdir, env, stdio: ['ignore', 'ignore', 'pipe'], ...asUser });
    // SIGKILL to unshare reaches the service too (--kill-child).
    signal?.addEventListener('abort', () => child.kill('SIGKILL'), { once: true });
    const lines = [];
    // 'close': the exit, and every line read.
    const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
    const listening = new Promise((resolve) => {
      onLines(child.stderr, (text) => {
        // KINDGI_LOG_FORMAT=json: every line a record.
        const line = JSON.parse(text);
        lines.push(line);
        if (line.kind === 'listening') resolve(line.port);
      });
      exited.then(() => resolve(undefined));
    });
    const bound = await listening;
    if (bound !== undefined) {
      assert.equal(bound, port, 'the service listens on PORT');
      return { child, lines, exited, port, asUser };
    }
    const busy = lines.some((l) => l.kind === 'boot-failed' && /EADDRINUSE/.test(l.problems?.[0]));
    assert.ok(busy && attempt < 3, `the service did not start (exit ${await exited}): ${JSON.stringify(lines)}`);
  }
}

const get = (port, path, headers = {}) => fetch(`http://127.0.0.1:${port}${path}`, { headers });

function invoke(port, tool, input, headers = {}) {
  return fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
    body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't1', runId: 'r1' } }),
  });
}

/** The probe a Deployment names (`livenessProbe`, …): its path, on the container port it names. */
function probePath(name) {
  const probe = container[name];
  assert.ok(probe?.httpGet, `the Deployment has an HTTP ${name}`);
  assert.equal(probe.httpGet.port, container.ports[0].name, `${name} asks the container's port`);
  return probe.httpGet.path;
}

test('the Containerfile: Node 26 slim, npm ci --omit=dev, a non-root user, node running the bin as PID 1, PORT', () => {
  // Node 26, the Active LTS line (docs/deployment.md says why).
  for (const stage of stages) assert.match(stage.image, /^node:26(\.\d+)*-(\w+-)?slim(@sha256:[0-9a-f]{64})?$/, 'a Node 26 slim base');
  const final = stages.at(-1);
  const runs = final.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.rest);
  assert.ok(runs.some((r) => /^npm ci --omit=dev\b/.test(r)), 'the image installs production dependencies only');
  const keywords = final.instructions.map((i) => i.keyword);
  assert.ok(!keywords.includes('ENTRYPOINT'), 'no ENTRYPOINT: the CMD alone is the process');

  const image = layImage();
  assert.match(image.user ?? '', /^[1-9]\d*(:\d+)?$/, 'USER is a non-root uid, by number');
  // Exec form (checked by the parse), node itself, the bin's file as package.json names it.
  assert.deepEqual(image.cmd.slice(0, 2), ['node', `node_modules/${pkg.name}/${pkg.bin['kindgi-pack-service'].replace(/^\.\//, '')}`]);
  assert.ok(!image.cmd.some((a) => /\bnpx\b|\bnpm\b|\bsh\b/.test(a)), 'no npx, npm or shell between node and the signal');
  assert.match(image.env.PORT ?? '', /^\d+$/, 'ENV PORT');
  assert.deepEqual(image.expose, [image.env.PORT], 'EXPOSE is PORT');
  assert.ok(image.stopSignal === undefined || image.stopSignal === 'SIGTERM', 'the stop signal is SIGTERM');
  assert.equal(image.env.KINDGI_PACK_SERVICE_TOKEN, undefined, 'no token baked into the image');
  for (const name of ['node_modules', 'index.json', '.env']) assert.ok(ignored(name), `.dockerignore leaves out ${name}`);
});

test('the Kubernetes manifests parse and agree with the Containerfile and the 8 s drain', () => {
  const image = layImage();
  const kustomization = only(docs, 'Kustomization');
  const files = [...new Set(docs.map((d) => d.file))].filter((f) => f !== 'kustomization.yaml').sort();
  assert.deepEqual([...kustomization.resources].sort(), files, 'the kustomization lists every manifest');
  assert.deepEqual(kustomization.images.map((i) => i.name), [container.image], 'the kustomization sets the Deployment image');

  // The image's CMD runs: nothing overrides it.
  assert.equal(container.command, undefined);
  assert.equal(container.args, undefined);
  assert.deepEqual(
    container.ports.map((p) => p.containerPort),
    [Number(image.env.PORT)],
    'the container port is the image PORT',
  );
  assert.equal(probePath('livenessProbe'), '/healthz');
  assert.equal(probePath('startupProbe'), '/healthz');
  assert.equal(probePath('readinessProbe'), '/readyz');

  const token = container.env.find((e) => e.name === 'KINDGI_PACK_SERVICE_TOKEN');
  assert.equal(token.value, undefined, 'no token in the manifest');
  assert.ok(token.valueFrom.secretKeyRef.name && token.valueFrom.secretKeyRef.key, 'the token comes from a Secret');
  assert.ok(!docs.some(({ doc }) => doc.kind === 'Secret'), 'no Secret manifest: docs/deployment.md creates it');

  // A pack whose code holds the JS thread fails liveness once the stall limit passes (the
  // manifest's value, else the service's default): it is restarted within a minute, and a
  // readiness probe's period is longer than the 1 s after which readiness says so.
  const stallVar = container.env.find((e) => e.name === 'KINDGI_PACK_SERVICE_STALL_MS');
  const stallMs = Number(stallVar?.value ?? native.serviceDefaults().stallMs);
  const live = container.livenessProbe;
  assert.ok(stallMs > 0, 'the stall check is on');
  assert.ok(stallMs + live.periodSeconds * live.failureThreshold * 1000 <= 60_000, 'a stuck pack is restarted within a minute');
  assert.ok(stallMs > live.timeoutSeconds * 1000, 'the stall limit is above the probe timeout');
  assert.ok(container.readinessProbe.periodSeconds >= 1, 'readiness is asked no more often than the stall shows');
  assert.ok(podSpec.terminationGracePeriodSeconds * 1000 > PACK_SERVICE_DRAIN_MS, 'the grace period is above the drain');
  assert.ok(kubernetesBudgetMs() >= PACK_SERVICE_DRAIN_MS + 2000, 'SIGTERM leaves the drain 2 s of margin before SIGKILL');
  for (const kind of ['requests', 'limits']) {
    assert.ok(container.resources[kind].cpu && container.resources[kind].memory, `resources.${kind}: cpu and memory`);
  }
  assert.equal(podSpec.securityContext.runAsNonRoot, true);
  assert.equal(String(podSpec.securityContext.runAsUser), image.user.split(':')[0], 'runAsUser is the image USER');

  const labels = deployment.spec.template.metadata.labels;
  const selects = (selector) => Object.entries(selector).every(([k, v]) => labels[k] === v);
  assert.ok(selects(deployment.spec.selector.matchLabels));
  const service = only(docs, 'Service');
  assert.ok(selects(service.spec.selector), 'the Service selects the pods');
  assert.deepEqual(service.spec.ports.map((p) => p.targetPort), [container.ports[0].name], 'the Service sends to the container port');
  const hpa = only(docs, 'HorizontalPodAutoscaler');
  assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
  assert.ok(hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas > hpa.spec.minReplicas);
  assert.equal(deployment.spec.replicas, undefined, 'the HPA owns the replica count');
  assert.ok(selects(only(docs, 'PodDisruptionBudget').spec.selector.matchLabels), 'the PodDisruptionBudget selects the pods');
});

test('started as the image starts it: PORT, the probes, a call, and SIGTERM drains the call in flight and exits 0', { timeout: 60_000 }, async (t) => {
  const image = layImage();
  const run = await startAsTheImage(image, { signal: t.signal });
  try {
    const { port, lines } = run;
    // The image's ENV and the Deployment's env are all names the service keeps.
    assert.deepEqual(lines.filter((l) => l.kind === 'env-dropped'), []);
    if (run.asUser.uid !== undefined) assert.ok(run.asUser.uid > 0, 'run as the image user');

    const live = await get(port, probePath('livenessProbe'));
    assert.equal(live.status, 200);
    assert.deepEqual(await live.json(), { status: 'ok' });
    const ready = await get(port, probePath('readinessProbe'));
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });

    const info = await get(port, '/v1/info', { 'kindgi-pack-token': TOKEN });
    assert.equal(info.status, 200);
    assert.equal((await info.json()).packId, 'fixture');
    const called = await invoke(port, 'fixture.echo', { text: 'from the image' });
    assert.equal(called.status, 200);
    assert.deepEqual(await called.json(), { v: 2, kind: 'result', output: { text: 'from the image', n: 1 } });
    assert.equal((await invoke(port, 'fixture.echo', { text: 'x' }, { 'kindgi-pack-token': 'not-the-secret' })).status, 401);

    // A call in flight (well into its 2 s) when the kubelet's SIGTERM comes.
    const slow = invoke(port, 'fixture.sleep', { ms: 2000 });
    await new Promise((r) => setTimeout(r, 500));
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    await until(() => lines.some((l) => l.kind === 'draining'), 'the draining line');
    // Out of the Service's endpoints while it drains; alive all the same.
    assert.equal((await get(port, probePath('readinessProbe'))).status, 503);
    assert.equal((await get(port, probePath('livenessProbe'))).status, 200);
    const answered = await slow;
    assert.equal(answered.status, 200);
    assert.deepEqual(await answered.json(), { v: 2, kind: 'result', output: { slept: 2000 } });
    assert.equal(await run.exited, 0);
    const took = Date.now() - signalled;
    assert.ok(took < PACK_SERVICE_DRAIN_MS, `exited ${took} ms after SIGTERM: the drain ends with its last call`);
    assert.deepEqual(
      lines.map((l) => l.kind).filter((k) => k === 'draining' || k === 'stopped'),
      ['draining', 'stopped'],
    );
    assert.equal(lines.at(-1).kind, 'stopped');
  } finally {
    run.child.kill('SIGKILL');
  }
});

/** `unshare` arguments that give the command a PID namespace of its own, or why there is none here. */
function pidNamespace() {
  const wrap = ['unshare', '--user', '--map-root-user', '--pid', '--fork', '--kill-child'];
  const probe = spawnSync(wrap[0], [...wrap.slice(1), 'true'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return { skip: `no PID namespace here (unshare: ${probe.error?.message ?? probe.stderr.trim()})` };
  return { wrap };
}

/** The pid (in this namespace) of `parent`'s child. */
function childOf(parent) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] === String(parent)) return Number(entry);
    } catch {
      // Gone while we looked.
    }
  }
  return undefined;
}

const namespace = pidNamespace();

test('node as PID 1 of its own PID namespace: SIGTERM drains, and a call past the budget still ends in exit 0 before Cloud Run or the kubelet would SIGKILL', { skip: namespace.skip, timeout: 60_000 }, async (t) => {
  const image = layImage();
  const run = await startAsTheImage(image, { wrap: namespace.wrap, signal: t.signal });
  let node;
  try {
    const { port, lines } = run;
    node = childOf(run.child.pid);
    assert.ok(node, 'the service process under unshare');
    // It is node itself, and PID 1 where it runs: the signal reaches it only through its handler.
    assert.equal(realpathSync(`/proc/${node}/exe`), realpathSync(process.execPath));
    assert.equal(/^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${node}/status`, 'utf8'))[1].split(/\s+/).at(-1), '1');
    assert.equal((await get(port, probePath('readinessProbe'))).status, 200);

    const answered = invoke(port, 'fixture.sleep', { ms: 2000 });
    // fixture.sleep ends when its call aborts; a drain aborts nothing, so this one outlives it.
    const stuck = invoke(port, 'fixture.sleep', { ms: 60_000 }).then(
      (res) => res.status,
      () => 'connection closed',
    );
    await new Promise((r) => setTimeout(r, 500));
    const signalled = Date.now();
    process.kill(node, 'SIGTERM');
    const done = await answered;
    assert.equal(done.status, 200);
    assert.deepEqual(await done.json(), { v: 2, kind: 'result', output: { slept: 2000 } });
    assert.equal(await run.exited, 0);
    const took = Date.now() - signalled;
    assert.ok(took >= PACK_SERVICE_DRAIN_MS - 100, `exited after ${took} ms, before the drain budget was spent`);
    assert.ok(took < CLOUD_RUN_GRACE_MS, `exited ${took} ms after SIGTERM: Cloud Run kills at ${CLOUD_RUN_GRACE_MS} ms`);
    assert.ok(took < kubernetesBudgetMs(), `exited ${took} ms after SIGTERM: the kubelet kills at ${kubernetesBudgetMs()} ms`);
    assert.notEqual(await stuck, 200);
    assert.deepEqual(
      lines.map((l) => l.kind).filter((k) => k === 'draining' || k === 'stopped'),
      ['draining', 'stopped'],
    );
    assert.equal(lines.at(-1).kind, 'stopped');
  } finally {
    if (node !== undefined) {
      try {
        process.kill(node, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

test('node as PID 1: a SIGTERM while it boots ends it at once, rather than after it boots and serves', { skip: namespace.skip, timeout: 30_000 }, async () => {
  // A pack whose one module takes 3 s to import: the boot (which imports it) is still going
  // when the signal comes.
  const dir = packFolder('kindgi-pid1-boot-');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'slow.mjs'), 'await new Promise((r) => setTimeout(r, 3000));\nexport default () => ({});\n');
  const index = { v: 1, packId: 'p', packVersion: '1', artifactVersion: 'a', publishedAt: 'b', tools: [{ id: 'slow', input: {}, output: {}, modulePath: 'tools/slow.mjs' }], guardrails: [], agents: [], flows: [] };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  const bin = fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url));
  const argv = [...namespace.wrap, process.execPath, bin, '--index', join(dir, 'index.json')];
  const child = spawn(argv[0], argv.slice(1), { env: { PATH: process.env.PATH, ...deploymentEnv(), PORT: '0' }, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
  try {
    await until(() => childOf(child.pid) !== undefined, 'the service process under unshare');
    const node = childOf(child.pid);
    // Its handler is in place once the addon and the service code have loaded.
    await new Promise((r) => setTimeout(r, 1000));
    const signalled = Date.now();
    process.kill(node, 'SIGTERM');
    assert.equal(await exited, 143);
    assert.ok(Date.now() - signalled < 1500, 'it did not wait for the boot');
  } finally {
    child.kill('SIGKILL');
  }
});

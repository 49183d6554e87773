// The entry: start the Copilot CLI first (it boots in ~0.4 s), then load the rest of the action
// (its own chunk of the bundle) while it boots. See cli/early.ts.
import { launchEarly } from './cli/early.js'

const early = launchEarly()
const { run } = await import('./main.js')
await run(process.env, early)

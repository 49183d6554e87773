// The post step's entry (action.yml `runs.post`): see post-run.ts.
import { postRun } from './post-run.js'

await postRun()

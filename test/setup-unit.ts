import { clearCompileCaches } from '../src/domain/compile-cache.js';

// The root hooks every test run has, and the whole setup of the unit tests' run (`npm run test:unit`,
// no database, no service). `test/setup.ts` imports it and adds the database and the service.

// Each test compiles its patterns and schemas itself (see clearCompileCaches).
beforeEach(() => clearCompileCaches());

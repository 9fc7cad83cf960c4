import { z } from 'zod';
const d = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);
for (const s of ['2026-02-29','2024-02-29','2026-02-30','2026-13-01','2026-01-31T12:00:00Z','2026-01-31T12:00:00.123+02:00','2026-01-31T12:00:00','2026-01-31T25:00:00Z', '2026-01-31T12:00Z'])
  console.log(s, d.safeParse(s).success, new Date(s).toISOString?.call(new Date(s)));

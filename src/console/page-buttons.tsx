import { Button, Group } from '@mantine/core';

/** The cursors of the pages before the one shown (Previous goes back one), and the one shown. */
export interface CursorPages {
  cursors: (string | null)[];
  setCursors: (cursors: (string | null)[]) => void;
  after: string | null;
  setAfter: (after: string | null) => void;
}

/** Previous and Next for a list read a page at a time by cursor; `page` is the page shown. */
export function PageButtons({
  pages,
  page,
  previous,
  next,
}: {
  pages: CursorPages;
  page: { hasNextPage: boolean; endCursor?: string | null } | undefined;
  previous: string;
  next: string;
}) {
  const { cursors, setCursors, after, setAfter } = pages;
  return (
    <Group justify="space-between">
      <Button
        variant="default"
        disabled={cursors.length === 0}
        onClick={() => {
          setAfter(cursors[cursors.length - 1] ?? null);
          setCursors(cursors.slice(0, -1));
        }}
      >
        {previous}
      </Button>
      <Button
        variant="default"
        disabled={!page?.hasNextPage}
        onClick={() => {
          setCursors([...cursors, after]);
          setAfter(page?.endCursor ?? null);
        }}
      >
        {next}
      </Button>
    </Group>
  );
}

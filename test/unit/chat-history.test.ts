import { expect } from 'chai';
import { HISTORY_CHARS, historyOf } from '../../src/domain/surfaces/chat.service.js';
import type { ChatTurn } from '../../src/domain/chat/chat.entities.js';

// What the model sees of a long conversation: the newest turns that fit in HISTORY_CHARS
// characters together, oldest first; an older turn that does not fit is left out whole, and so is
// everything before it.

const turn = (i: number, chars: number): ChatTurn => ({
  id: `t${i}`,
  conversationId: 'conv_1',
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: String(i % 10).repeat(chars),
  runId: null,
  createdAt: new Date(0),
});
const lengths = (h: { content: string }[]) => h.map((t) => t.content.length);

describe('chat history the model sees', () => {
  it('keeps every turn while they fit together, oldest first, with their roles', () => {
    const turns = [turn(0, 10), turn(1, 20), turn(2, 30)];
    expect(historyOf(turns)).to.deep.equal([
      { role: 'user', content: '0'.repeat(10) },
      { role: 'assistant', content: '1'.repeat(20) },
      { role: 'user', content: '2'.repeat(30) },
    ]);
  });

  it('turns that fill the budget exactly are all kept; one character more leaves the oldest out whole', () => {
    const half = HISTORY_CHARS / 2;
    expect(lengths(historyOf([turn(0, half), turn(1, half)]))).to.deep.equal([half, half]);
    expect(lengths(historyOf([turn(0, half + 1), turn(1, half)]))).to.deep.equal([half]);
  });

  it('stops at the first turn that does not fit: a short turn before it is left out too', () => {
    const turns = [turn(0, 5), turn(1, HISTORY_CHARS - 100), turn(2, 50), turn(3, 60)];
    expect(lengths(historyOf(turns))).to.deep.equal([50, 60]);
  });

  it('a newest turn longer than the budget leaves nothing', () => {
    expect(historyOf([turn(0, 10), turn(1, HISTORY_CHARS + 1)])).to.deep.equal([]);
  });
});

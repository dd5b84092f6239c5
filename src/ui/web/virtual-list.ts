import { h } from './dom.js';

export interface Page<T> {
  total: number;
  items: T[];
}

export interface VirtualListOptions<T> {
  rowHeight: number;
  pageSize: number;
  fetchPage(offset: number, limit: number): Promise<Page<T>>;
  renderRow(item: T, index: number): HTMLElement;
  onTotal?(total: number): void;
}

/**
 * A scrolling list that renders only the rows in view (plus a margin) and fetches pages from the
 * server as they come into view, so a 100k-row exchange costs a few dozen DOM nodes and pages.
 */
export class VirtualList<T> {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private pages = new Map<number, T[]>();
  private pending = new Map<number, Promise<void>>();
  private generation = 0;
  private frame = 0;
  total = 0;

  constructor(private readonly options: VirtualListOptions<T>) {
    this.spacer = h('div', { class: 'vlist-spacer' });
    this.element = h('div', { class: 'vlist' }, this.spacer);
    this.element.addEventListener('scroll', () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(this.element);
  }

  /** Drops everything and loads the first page again (after a filter change). */
  async reset(): Promise<void> {
    this.generation++;
    this.pages.clear();
    this.pending.clear();
    this.element.scrollTop = 0;
    await this.load(0);
    this.render();
  }

  /** Re-reads the total and the pages in view (a live recording grew). */
  async refresh(): Promise<void> {
    const [first, last] = this.visiblePages();
    this.generation++;
    const keep = new Map<number, T[]>();
    for (const [p, items] of this.pages) if (p >= first && p <= last && items.length === this.options.pageSize) keep.set(p, items);
    this.pages = keep;
    this.pending.clear();
    await Promise.all(range(first, last).filter((p) => !keep.has(p)).map((p) => this.load(p)));
    if (this.total > 0 && this.pages.size === 0) await this.load(0);
    this.render();
  }

  /** The loaded item at index, if its page is in memory. */
  item(index: number): T | undefined {
    return this.pages.get(Math.floor(index / this.options.pageSize))?.[index % this.options.pageSize];
  }

  /** The item at index, fetching its page when it is not in memory. */
  async itemAt(index: number): Promise<T | undefined> {
    if (index < 0 || index >= this.total) return undefined;
    const page = Math.floor(index / this.options.pageSize);
    if (!this.pages.has(page)) await this.load(page);
    return this.item(index);
  }

  /** The index of the first loaded item that matches, trying `hint` first; -1 when none does. */
  indexWhere(match: (item: T) => boolean, hint?: number): number {
    if (hint !== undefined) {
      const item = this.item(hint);
      if (item !== undefined && match(item)) return hint;
    }
    const size = this.options.pageSize;
    for (const [page, items] of [...this.pages].sort((x, y) => x[0] - y[0])) {
      const i = items.findIndex(match);
      if (i !== -1) return page * size + i;
    }
    return -1;
  }

  /** Scrolls so the row is in view (centred when it was out of view). */
  scrollToIndex(index: number): void {
    const { rowHeight } = this.options;
    const top = index * rowHeight;
    const view = this.element.clientHeight;
    if (top < this.element.scrollTop || top + rowHeight > this.element.scrollTop + view) {
      this.element.scrollTop = Math.max(0, top - view / 2);
    }
    this.schedule();
  }

  /** Re-renders the rows in view (e.g. after the selection changed). */
  render(): void {
    const { rowHeight, pageSize } = this.options;
    this.spacer.style.height = `${this.total * rowHeight}px`;
    const [start, end] = this.visibleRows();
    const missing = new Set<number>();
    const rows: HTMLElement[] = [];
    for (let i = start; i < end; i++) {
      const item = this.item(i);
      let row: HTMLElement;
      if (item === undefined) {
        missing.add(Math.floor(i / pageSize));
        row = h('div', { class: 'msg-row placeholder' }, h('span', {}, '…'));
      } else {
        row = this.options.renderRow(item, i);
      }
      row.style.top = `${i * rowHeight}px`;
      rows.push(row);
    }
    this.spacer.replaceChildren(...rows);
    for (const p of missing) if (!this.pages.has(p)) this.load(p).then(() => this.schedule(), () => undefined);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private visibleRows(): [number, number] {
    const { rowHeight } = this.options;
    const overscan = 10;
    const height = this.element.clientHeight || 600;
    const start = Math.max(0, Math.floor(this.element.scrollTop / rowHeight) - overscan);
    const end = Math.min(this.total, Math.ceil((this.element.scrollTop + height) / rowHeight) + overscan);
    return [start, end];
  }

  private visiblePages(): [number, number] {
    const [start, end] = this.visibleRows();
    const size = this.options.pageSize;
    return [Math.floor(start / size), Math.floor(Math.max(start, end - 1) / size)];
  }

  private load(page: number): Promise<void> {
    if (this.pages.has(page)) return Promise.resolve();
    const existing = this.pending.get(page);
    if (existing) return existing;
    const generation = this.generation;
    const { pageSize } = this.options;
    const promise = this.options
      .fetchPage(page * pageSize, pageSize)
      .then((result) => {
        if (generation !== this.generation) return;
        this.pages.set(page, result.items);
        if (result.total !== this.total) {
          this.total = result.total;
          this.options.onTotal?.(result.total);
        }
      })
      .finally(() => {
        if (this.pending.get(page) === promise) this.pending.delete(page);
      });
    this.pending.set(page, promise);
    return promise;
  }
}

function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}

// Numbers in plain words, as the status bar and the messages write them. Pure, for the unit tests.

/** 3,177: thousands grouped the same way whatever the editor's locale. */
export const count = (n: number): string => n.toLocaleString("en-US");

export function plural(n: number, one: string, many: string): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** How long something still takes, roughly: "less than a minute", "about 4 min", "about 2 h 5 min". */
export function duration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes < 1) {
    return "less than a minute";
  }
  if (minutes < 60) {
    return `about ${minutes} min`;
  }
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `about ${hours} h${rest ? ` ${rest} min` : ""}`;
}

/** A size on disk: "512 B", "3.4 KB", "48 MB", "1.2 GB" (units of 1,024). */
export function size(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value).toString() : value.toFixed(1);
  return `${shown} ${units[unit]}`;
}

/** How much of a whole is done, in whole percent, never 100 while anything is left. */
export function percent(done: number, left: number): number {
  const total = done + left;
  if (total <= 0) {
    return 100;
  }
  return left > 0 ? Math.min(Math.floor((100 * done) / total), 99) : 100;
}

/** A vault root's URI as the folder a person knows (file:///home/me/My%20Vault: /home/me/My Vault). */
export function displayPath(root: string): string {
  return root.startsWith("file://") ? decodeURIComponent(root.slice("file://".length)) : root;
}

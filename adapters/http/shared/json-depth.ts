/**
 * How deeply a JSON text nests arrays and objects, read in one pass without parsing it. Bodies
 * nested deeper than any request needs are refused before anything recurses over them.
 */
export const jsonNestingDepth = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x7b || c === 0x5b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return deepest
}

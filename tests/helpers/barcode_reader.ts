/**
 * Reading a barcode off a rendered page as a scanner would: the page rendered by MuPDF
 * (pdf.ts renderGray), decoded by ZXing (`@zxing/library`, the maintained port of the ZXing
 * scanner), whatever drew the bars (vector rectangles or an embedded image).
 */
import zxing from "@zxing/library";
import { renderGray } from "./pdf.ts";

const { BarcodeFormat, BinaryBitmap, DecodeHintType, HybridBinarizer, MultiFormatReader } = zxing;

export type Symbology = "code128" | "code39";

/** The text of the `symbology` barcode on page `page` (1-based), or null when none reads. */
export async function scannedBarcode(
  pdf: Uint8Array,
  o: { page: number; symbology: Symbology; dpi?: number },
): Promise<string | null> {
  const image = await renderGray(pdf, { page: o.page, dpi: o.dpi ?? 150 });
  const source = new zxing.RGBLuminanceSource(
    new Uint8ClampedArray(image.pixels),
    image.width,
    image.height,
  );
  const hints = new Map();
  hints.set(DecodeHintType.POSSIBLE_FORMATS, [
    o.symbology === "code128" ? BarcodeFormat.CODE_128 : BarcodeFormat.CODE_39,
  ]);
  hints.set(DecodeHintType.TRY_HARDER, true);
  try {
    return new MultiFormatReader().decode(new BinaryBitmap(new HybridBinarizer(source)), hints)
      .getText();
  } catch (e) {
    if (e instanceof zxing.NotFoundException) return null;
    throw e;
  }
}

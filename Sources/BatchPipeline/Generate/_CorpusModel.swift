// MARK: Internal API
//
// The generator's text model: categories (with their true folder), languages, sender styles and message
// templates with slots. Templates are parsed once into byte segments, so generating is appends only.

/// A template slot filled at random.
enum _Slot: String, CaseIterable {
    case amt, acct, otp, date, time, url, name, pct, code, order, num, merchant, bank, emoji, place, phone, mins
}

enum _Segment {
    case text([UInt8])
    case slot(_Slot)
}

struct _Template {
    let segments: [_Segment]
    init(_ text: String) {
        var segments: [_Segment] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}"),
            let slot = _Slot(rawValue: String(rest[rest.index(after: open)..<close]))
        {
            if open > rest.startIndex { segments.append(.text(Array(rest[..<open].utf8))) }
            segments.append(.slot(slot))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { segments.append(.text(Array(rest.utf8))) }
        self.segments = segments
    }
}

enum _SenderStyle {
    /// TRAI DLT header `XY-ENTITY-S` with the given entities and suffix.
    case trai([String], suffix: String)
    case shortCode([String])
    case alpha([String])
    case phone
    case email([String])
}

struct _Category {
    let label: String
    let weight: Int
    /// Templates per language code: en, hinglish, hi, zh, th.
    let templates: [String: [_Template]]
    /// Sender styles per language code ("*" for any).
    let senders: [String: [_SenderStyle]]
}

final class _CorpusModel: Sendable {
    static let shared = _CorpusModel()

    let categories: [_Category]
    let cumulative: [Int]
    let languages: [(String, Int)] = [("en", 48), ("hinglish", 15), ("hi", 10), ("zh", 13), ("th", 14)]
    /// Sentences added after a business message (a bank's or a shop's sign-off), per language.
    let fillers: [String: [_Template]]
    /// Sentences added after a personal chat: no sign-off, no ad text (a chat ending "T&C apply" would read as
    /// a promotion, and the corpus would test less than it claims).
    let chatFillers: [String: [_Template]]
    let slotValues: [_Slot: [[UInt8]]]
    let operators = ["VM", "AD", "JM", "BZ", "VK", "AX", "JX", "BP", "TM", "QP", "DM", "CP"]

    private init() {
        func t(_ list: [String]) -> [_Template] { list.map(_Template.init) }
        let banks = ["HDFCBK", "ICICIB", "SBIINB", "AXISBK", "KOTAKB", "PNBSMS"]
        categories = [
            _Category(
                label: "Inbox", weight: 30,
                templates: [
                    "en": t(["Hey {name}, are we still on for lunch tomorrow?", "Running 10 mins late, see you at {place} {emoji}",
                        "Happy birthday {name}! Have a great year ahead {emoji}", "Can you call me when you're free?",
                        "Ok lar... see you there", "Did you reach home safely?", "Mom says dinner at {time}, don't be late",
                        "Thanks for yesterday, it was fun {emoji}", "I'll send the photos tonight", "Where are you? We're waiting at {place}"]),
                    "hinglish": t(["bhai kal party hai, aa jana {time} baje", "kya haal hai {name}? kab mil rahe ho",
                        "yaar thoda late ho jayega, {mins} min ruko", "ghar pahunch gaya, tension mat lo {emoji}",
                        "mummy bol rahi hai khana ready hai", "kal office nahi aa raha, tabiyat theek nahi"]),
                    "hi": t(["नमस्ते {name}, कल मिलते हैं", "मैं {time} बजे तक पहुँच जाऊँगा", "जन्मदिन की बहुत बहुत शुभकामनाएँ {emoji}",
                        "घर पहुँच कर फोन करना", "आज खाने में क्या बना है?"]),
                    "zh": t(["明天中午一起吃饭吗？", "我到{place}了，你在哪里？", "生日快乐{emoji}祝你天天开心", "晚上给你打电话", "路上堵车，晚到{mins}分钟"]),
                    "th": t(["พรุ่งนี้ไปกินข้าวกันไหม", "ถึงบ้านแล้วนะ {emoji}", "สุขสันต์วันเกิดนะ {name}", "รอแป๊บนึง อีก {mins} นาทีถึง", "คิดถึงนะ โทรหาหน่อย"]),
                ],
                senders: ["*": [.phone]]),
            _Category(
                label: "Transactions/Others", weight: 12,
                templates: [
                    "en": t(["{otp} is your OTP for login. Valid for {mins} minutes. Do not share it with anyone.",
                        "Your verification code is {otp}. It expires in {mins} minutes.",
                        "Use OTP {otp} to complete your transaction of Rs {amt} at {merchant}. Never share your OTP."]),
                    "hinglish": t(["aapka OTP {otp} hai. Kisi ke saath share na karein.", "Login OTP {otp} hai, {mins} min tak valid"]),
                    "hi": t(["आपका OTP {otp} है। इसे किसी के साथ साझा न करें।", "सत्यापन कोड {otp} है, {mins} मिनट तक मान्य।"]),
                    "zh": t(["【{merchant}】您的验证码是{otp}，{mins}分钟内有效，请勿泄露。", "验证码：{otp}，用于登录，请勿告诉他人。"]),
                    "th": t(["รหัส OTP ของคุณคือ {otp} ใช้ภายใน {mins} นาที ห้ามบอกรหัสนี้กับผู้อื่น", "<OTP> {otp} รหัสอ้างอิง {code} ใช้ภายใน {mins} นาที"]),
                ],
                senders: ["*": [.trai(["OTPSMS", "VERIFY", "GOOGLE", "PAYTMB"], suffix: "T"), .shortCode(["57575", "10690", "4242"]), .alpha(["Google", "AIS", "TrueMove"])]]),
            _Category(
                label: "Transactions/Finance", weight: 10,
                templates: [
                    "en": t(["Rs {amt} debited from a/c XX{acct} on {date} to VPA {merchant}@upi. Not you? Call 1800{phone}",
                        "Your A/c XX{acct} is credited with INR {amt} on {date}. Avl bal: INR {amt}.",
                        "Txn of Rs {amt} on your {bank} credit card ending {acct} at {merchant} on {date}.",
                        "EMI of Rs {amt} for loan a/c {acct} is due on {date}. Please maintain sufficient balance."]),
                    "hinglish": t(["aapke a/c XX{acct} se Rs {amt} debit hue hain, {date}", "Rs {amt} credit ho gaye aapke account XX{acct} mein"]),
                    "hi": t(["प्रिय ग्राहक, आपके खाते XX{acct} से रु {amt} डेबिट किए गए हैं।", "आपके खाते में रु {amt} जमा किए गए हैं। शेष राशि रु {amt}"]),
                    "zh": t(["【{bank}】您尾号{acct}的账户于{date}支出人民币{amt}元，余额{amt}元。", "您尾号{acct}的信用卡消费{amt}元，商户：{merchant}。"]),
                    "th": t(["บัญชี xx{acct} ถอน/โอนเงิน {amt} บาท คงเหลือ {amt} บาท", "เงินเข้าบัญชี xx{acct} จำนวน {amt} บาท วันที่ {date}"]),
                ],
                senders: ["zh": [.shortCode(["95588", "95533", "95555"])], "th": [.alpha(["KBank", "SCB", "Krungsri"])],
                    "*": [.trai(banks, suffix: "S"), .alpha(["HDFCBK", "ICICIB"])]]),
            _Category(
                label: "Transactions/Orders", weight: 6,
                templates: [
                    "en": t(["Your order #{order} has been shipped and will be delivered by {date}. Track: {url}",
                        "Delivered: your package with order id {order} was delivered today.", "Your {merchant} order {order} is out for delivery."]),
                    "hinglish": t(["aapka order {order} ship ho gaya hai, {date} tak deliver hoga"]),
                    "hi": t(["आपका ऑर्डर {order} भेज दिया गया है, {date} तक डिलीवर होगा।"]),
                    "zh": t(["【京东】您的订单{order}已发货，快递单号SF{num}。", "您的包裹已到达{place}，请凭取件码{code}领取。"]),
                    "th": t(["คำสั่งซื้อ {order} ของคุณจัดส่งแล้ว ติดตามพัสดุ {url}", "พัสดุของคุณถึงแล้ว เลขที่ {num}"]),
                ],
                senders: ["*": [.trai(["AMAZON", "FLPKRT", "MYNTRA", "SWIGGY"], suffix: "S"), .alpha(["Shopee", "Lazada", "JD"])]]),
            _Category(
                label: "Transactions/Reminders", weight: 4,
                templates: [
                    "en": t(["Reminder: your appointment with {name} is on {date} at {time}. Reply C to cancel.",
                        "Your electricity bill of Rs {amt} is due on {date}. Pay now to avoid late fee.", "Reminder: meeting at {time} tomorrow at {place}."]),
                    "hinglish": t(["Reminder: aapka bill Rs {amt} {date} tak due hai"]),
                    "hi": t(["अनुस्मारक: आपका बिल रु {amt} दिनांक {date} तक देय है।"]),
                    "zh": t(["提醒：您预约的{date} {time}的服务即将开始。", "您的账单{amt}元将于{date}到期，请及时还款。"]),
                    "th": t(["แจ้งเตือน: นัดหมายของคุณวันที่ {date} เวลา {time}", "ค่าบริการ {amt} บาท ครบกำหนดชำระวันที่ {date}"]),
                ],
                senders: ["*": [.trai(["BESCOM", "TATAPW", "REMIND"], suffix: "S"), .alpha(["Reminder", "Clinic"])]]),
            _Category(
                label: "Transactions/Health", weight: 2,
                templates: [
                    "en": t(["Your lab report for test {code} is ready. Download: {url}", "Dr. {name} has confirmed your appointment on {date} at {time}.",
                        "Time to take your medicine. Dose 2 of 3 today."]),
                    "hinglish": t(["aapki lab report ready hai, download karein {url}"]),
                    "hi": t(["आपकी जाँच रिपोर्ट तैयार है। डॉक्टर से {date} को मिलें।"]),
                    "zh": t(["【医院】您的体检报告已出，请登录{url}查看。"]),
                    "th": t(["ผลตรวจสุขภาพของคุณพร้อมแล้ว ดูได้ที่ {url}"]),
                ],
                senders: ["*": [.trai(["APOLLO", "PRACTO", "1MGLAB"], suffix: "S"), .alpha(["Hospital"])]]),
            _Category(
                label: "Transactions/Weather", weight: 1,
                templates: [
                    "en": t(["IMD alert: heavy rainfall expected in {place} over the next 48 hours. Stay indoors.", "Weather warning: cyclone expected near {place}, wind speed {num} km/h."]),
                    "hinglish": t(["IMD alert: {place} mein bhari barish ki sambhavna, ghar par rahein"]),
                    "hi": t(["मौसम चेतावनी: {place} में अगले 48 घंटों में भारी बारिश की संभावना।"]),
                    "zh": t(["【气象台】{place}发布暴雨橙色预警，请注意防范。"]),
                    "th": t(["กรมอุตุฯ เตือน ฝนตกหนักในพื้นที่ {place} ช่วง 48 ชั่วโมงข้างหน้า"]),
                ],
                senders: ["*": [.trai(["IMDWTH", "WEATHR"], suffix: "G"), .shortCode(["12121"])]]),
            _Category(
                label: "Transactions/Carrier", weight: 4,
                templates: [
                    "en": t(["Your prepaid plan expires in 2 days. Recharge now to continue enjoying unlimited data.",
                        "You have used 90% of your daily data quota. Data balance: {num} MB.", "Your recharge of Rs {amt} is successful. Validity {num} days."]),
                    "hinglish": t(["aapka data pack khatam hone wala hai, abhi recharge karein"]),
                    "hi": t(["आपका प्रीपेड प्लान 2 दिन में समाप्त हो रहा है। अभी रिचार्ज करें।"]),
                    "zh": t(["【中国移动】您的话费余额不足{num}元，请及时充值。", "您本月流量已使用{pct}%。"]),
                    "th": t(["แพ็กเกจอินเทอร์เน็ตของคุณจะหมดอายุใน 2 วัน เติมเงินเลย"]),
                ],
                senders: ["zh": [.shortCode(["10086", "10010"])], "th": [.alpha(["AIS", "dtac", "TrueMove"])], "*": [.trai(["JIOINF", "AIRTEL", "VICARE"], suffix: "T")]]),
            _Category(
                label: "Transactions/Rewards", weight: 2,
                templates: [
                    "en": t(["You earned {num} reward points on your last purchase. Points balance: {num}.", "Rs {amt} cashback credited to your wallet."]),
                    "hinglish": t(["aapko {num} reward points mile hain"]),
                    "hi": t(["आपको {num} रिवॉर्ड पॉइंट्स मिले हैं।"]),
                    "zh": t(["恭喜您获得{num}积分，当前积分余额{num}。"]),
                    "th": t(["คุณได้รับ {num} คะแนนสะสม จากการใช้จ่ายครั้งล่าสุด"]),
                ],
                senders: ["*": [.trai(["PAYTMR", "GPAYRW"], suffix: "S"), .email(["alerts@paytm.com", "rewards@bank.com"])]]),
            _Category(
                label: "Transactions/Public Services", weight: 2,
                templates: [
                    "en": t(["Your Aadhaar has been updated successfully. Download e-Aadhaar at uidai.gov.in", "Your passport application {code} is under review.",
                        "Your vehicle {code} has a pending challan of Rs {amt}."]),
                    "hinglish": t(["aapka Aadhaar update ho gaya hai"]),
                    "hi": t(["आपका आधार सफलतापूर्वक अपडेट हो गया है।"]),
                    "zh": t(["【12345】您的社保业务已办理完成。"]),
                    "th": t(["กรมการปกครอง: บัตรประชาชนของคุณพร้อมรับแล้ว"]),
                ],
                senders: ["*": [.trai(["UIDAI", "GOVTIN", "MPARIV"], suffix: "G")]]),
            _Category(
                label: "Promotions/Offers", weight: 6,
                templates: [
                    "en": t(["Flat {pct}% OFF on everything this weekend! Shop now at {url}", "Big sale is live: up to {pct}% off on electronics. Hurry!",
                        "Get 2 for 1 on all pizzas today only. Order at {url}"]),
                    "hinglish": t(["Mega sale! {pct}% tak ki chhoot, aaj hi order karein {url}"]),
                    "hi": t(["महा सेल! {pct}% तक की छूट, आज ही खरीदें {url}"]),
                    "zh": t(["【{merchant}】双十一大促，全场{pct}折起，点击{url}抢购！"]),
                    "th": t(["โปรโมชั่นพิเศษ ลดสูงสุด {pct}% วันนี้เท่านั้น {url}"]),
                ],
                senders: ["*": [.trai(["MYNTRA", "FLPKRT", "DOMINO"], suffix: "P"), .alpha(["Shopee", "Lazada"])]]),
            _Category(
                label: "Promotions/Coupons", weight: 3,
                templates: [
                    "en": t(["Use coupon code {code} to get extra {pct}% off on your first purchase", "Your promo code {code} is waiting: Rs {amt} off."]),
                    "hinglish": t(["coupon code {code} lagao aur paao {pct}% off"]),
                    "hi": t(["कूपन कोड {code} का इस्तेमाल करें और {pct}% छूट पाएँ"]),
                    "zh": t(["您有一张{amt}元优惠券待领取，券码{code}。"]),
                    "th": t(["ใช้โค้ด {code} รับส่วนลดเพิ่ม {pct}%"]),
                ],
                senders: ["*": [.trai(["SWIGGY", "ZOMATO", "AJIO"], suffix: "P")]]),
            _Category(
                label: "Promotions/Others", weight: 3,
                templates: [
                    "en": t(["New arrivals are here! Check out the latest collection at {url}", "Join our webinar on {date} at {time}. Register: {url}"]),
                    "hinglish": t(["naya collection aa gaya hai, dekhiye {url}"]),
                    "hi": t(["नया कलेक्शन आ गया है, देखें {url}"]),
                    "zh": t(["新品上市，欢迎选购{url}", "订阅我们的会员，享受专属服务。"]),
                    "th": t(["ดูดวงรายวันกับโหรชื่อดัง สมัคร *{num}# 9บ/sms/วัน"]),
                ],
                senders: ["*": [.trai(["BRANDS", "NEWSLT"], suffix: "P"), .shortCode(["4455", "9191"])]]),
            _Category(
                label: "Junk", weight: 7,
                templates: [
                    "en": t(["Congratulations! You have won a lottery of Rs {amt}. Send your bank details to claim now.",
                        "URGENT! Your account will be blocked. Update KYC now at {url}", "FREE entry to win a brand new iPhone! Text WIN to {num}",
                        "You have been selected for a work from home job, earn Rs {amt} daily. WhatsApp {phone}"]),
                    "hinglish": t(["Badhai ho! Aapne Rs {amt} ki lottery jeeti hai, claim karne ke liye {url} par jayein",
                        "aapka KYC pending hai, turant update karein warna account block ho jayega {url}"]),
                    "hi": t(["बधाई हो! आपने रु {amt} की लॉटरी जीती है। दावा करने के लिए {url} पर जाएँ।"]),
                    "zh": t(["恭喜您中奖了！请点击链接领取奖金{url}", "您的账户存在异常，请立即点击{url}验证身份。"]),
                    "th": t(["{url} เว็บตรงแจกฟรี {num}บาท รับเพิ่ม{pct}% คลิก {url}", "บัญชีของคุณถูกระงับ กรุณายืนยันตัวตนที่ {url}"]),
                ],
                senders: ["*": [.phone, .email(["winner@prize-claim.biz", "kyc.update@secure-bank.co"]), .shortCode(["56161", "87121"])]]),
        ]
        var sum = 0
        cumulative = categories.map { sum += $0.weight; return sum }
        fillers = [
            "en": t([" Please ignore if already done.", " For details visit our website.", " T&C apply.", " Reply STOP to opt out.",
                " Call our helpline for any queries.", " Thank you for banking with us.", " Have a nice day {emoji}"]),
            "hinglish": t([" zyada jaankari ke liye call karein.", " dhanyavaad.", " T&C lagu."]),
            "hi": t([" अधिक जानकारी के लिए कॉल करें।", " धन्यवाद।", " नियम व शर्तें लागू।"]),
            "zh": t(["详情请咨询客服。", "感谢您的支持。", "退订回T。"]),
            "th": t([" สอบถามเพิ่มเติมโทร 1234", " ขอบคุณที่ใช้บริการ", " ยกเลิกกด *137"]),
        ]
        chatFillers = [
            "en": t([" Call me when you can.", " See you soon {emoji}", " Let me know.", " Talk later!", " Miss you {emoji}",
                " Say hi to {name}.", " Don't forget the keys."]),
            "hinglish": t([" baad mein baat karte hain", " call karna {emoji}", " jaldi aana"]),
            "hi": t([" बाद में बात करते हैं।", " जल्दी आना {emoji}", " फोन करना।"]),
            "zh": t(["回头聊。", "早点回来{emoji}", "记得带钥匙。"]),
            "th": t([" แล้วคุยกันนะ", " รีบกลับมานะ {emoji}", " โทรหาด้วย"]),
        ]
        func bytes(_ list: [String]) -> [[UInt8]] { list.map { Array($0.utf8) } }
        slotValues = [
            .name: bytes(["Priya", "Rahul", "Anita", "Wei", "Somchai", "John", "Aisha", "Mehta", "Li Na", "Nok"]),
            .place: bytes(["Mumbai", "Delhi", "Bangkok", "Chennai", "Shanghai", "the station", "Connaught Place", "Sukhumvit"]),
            .merchant: bytes(["zomato", "amazon", "flipkart", "swiggy", "BigBasket", "Lazada", "Taobao", "7-Eleven"]),
            .bank: bytes(["HDFC Bank", "ICICI", "SBI", "工商银行", "KBank"]),
            .emoji: bytes(["🙂", "😂", "🎉", "❤️", "👍", "🙏", "😊"]),
            .url: bytes(["https://bit.ly/3xYz12", "amzn.in/d/abc", "https://lin.ee/lmMFU5k", "www.example.in/offer", "t.ly/Qa9"]),
        ]
    }

    /// Appends one JSON line for record `number`.
    func record(number: Int, rng: inout _SplitMix, into out: _ByteBuffer) {
        let pick = rng.below(cumulative.last!)
        var index = 0
        while cumulative[index] <= pick { index += 1 }
        let category = categories[index]
        var languagePick = rng.below(100)
        var language = "en"
        for (code, weight) in languages {
            if languagePick < weight {
                language = code
                break
            }
            languagePick -= weight
        }
        let templates = category.templates[language] ?? category.templates["en"]!
        out.append("{\"id\": \"gen:")
        out.appendDecimal(number)
        out.append("\", \"sender\": ")
        appendSender(category, language, &rng, out)
        out.append(", \"body\": \"")
        let bodyStart = out.count
        appendTemplate(templates[rng.below(templates.count)], &rng, out)
        // A long tail: a few messages carry many extra sentences (up to several KB).
        let extra = rng.chance(0.7) ? 1 + rng.below(3) : (rng.chance(0.03) ? 10 + rng.below(60) : 0)
        if extra > 0, let filler = (category.label == "Inbox" ? chatFillers : fillers)[language] {
            for _ in 0..<extra { appendTemplate(filler[rng.below(filler.count)], &rng, out) }
        }
        _ = bodyStart
        out.append("\", \"ts\": ")
        out.appendDecimal(1_600_000_000 + number * 37 + rng.below(30))
        out.append(", \"label\": \"")
        out.append(Array(category.label.utf8))
        out.append("\", \"lang\": \"")
        out.append(Array(language.utf8))
        out.append("\"}\n")
    }

    private func appendSender(_ category: _Category, _ language: String, _ rng: inout _SplitMix, _ out: _ByteBuffer) {
        let styles = category.senders[language] ?? category.senders["*"]!
        switch styles[rng.below(styles.count)] {
        case .trai(let entities, let suffix):
            out.append(UInt8(ascii: "\""))
            out.append(Array(operators[rng.below(operators.count)].utf8))
            out.append(UInt8(ascii: "-"))
            out.append(Array(entities[rng.below(entities.count)].utf8))
            if rng.chance(0.8) {
                out.append(UInt8(ascii: "-"))
                out.append(Array(suffix.utf8))
            }
            out.append(UInt8(ascii: "\""))
        case .shortCode(let codes), .alpha(let codes), .email(let codes):
            out.append(UInt8(ascii: "\""))
            out.append(Array(codes[rng.below(codes.count)].utf8))
            out.append(UInt8(ascii: "\""))
        case .phone:
            // Mobile numbers of their real national lengths: China 1xx xxxx xxxx (11 digits), Thailand 8x xxx
            // xxxx (9), the US (415) xxx xxxx (10), India 98xxx xxxxx (10).
            let prefix: StaticString
            let digits: Int
            switch language {
            case "zh": (prefix, digits) = ("\"+861", 10)
            case "th": (prefix, digits) = ("\"+668", 8)
            case "en": (prefix, digits) = rng.chance(0.5) ? ("\"+1415", 7) : ("\"+9198", 8)
            default: (prefix, digits) = ("\"+9198", 8)
            }
            out.append(prefix)
            for _ in 0..<digits { out.append(UInt8(ascii: "0") + UInt8(rng.below(10))) }
            out.append(UInt8(ascii: "\""))
        }
    }

    private func appendTemplate(_ template: _Template, _ rng: inout _SplitMix, _ out: _ByteBuffer) {
        for segment in template.segments {
            switch segment {
            case .text(let bytes): out.append(bytes)
            case .slot(let slot): appendSlot(slot, &rng, out)
            }
        }
    }

    private func appendSlot(_ slot: _Slot, _ rng: inout _SplitMix, _ out: _ByteBuffer) {
        func digits(_ n: Int) { for _ in 0..<n { out.append(UInt8(ascii: "0") + UInt8(rng.below(10))) } }
        switch slot {
        case .amt:
            out.appendDecimal(1 + rng.below(rng.chance(0.8) ? 5000 : 250_000))
            if rng.chance(0.5) { out.append(".00") }
        case .acct: digits(4)
        case .otp: digits(rng.chance(0.7) ? 6 : 4)
        case .date:
            out.appendDecimal(1 + rng.below(28))
            out.append(["-01-25", "-05-24", "-11-24", "/03/2025", " May", " Jun"][rng.below(6)] as StaticString)
        case .time:
            out.appendDecimal(1 + rng.below(12))
            out.append([":00 PM", ":30 AM", ":15", ":45 PM"][rng.below(4)] as StaticString)
        case .pct: out.appendDecimal(10 + 5 * rng.below(15))
        case .code:
            for _ in 0..<6 { out.append(UInt8(ascii: "A") + UInt8(rng.below(26))) }
            digits(2)
        case .order:
            digits(3)
            out.append(UInt8(ascii: "-"))
            digits(7)
        case .num: out.appendDecimal(rng.below(100_000))
        case .phone: digits(7)
        case .mins: out.appendDecimal(2 + rng.below(28))
        default:
            let values = slotValues[slot]!
            out.append(values[rng.below(values.count)])
        }
    }
}

#!/usr/bin/env python3
"""Builds samples/sample.jsonl.zst: real public SMS (see samples/README.md for attribution) plus a few
hand-written messages with senders of every style, so `make demo` exercises every folder.

Usage: python3 Scripts/make-sample.py ../shared/corpora samples/sample.jsonl.zst
"""
import json, subprocess, sys

corpora, out = sys.argv[1], sys.argv[2]

def read(name, every):
    text = subprocess.run(["zstd", "-dc", f"{corpora}/{name}"], capture_output=True, check=True).stdout.decode()
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    return lines[::every]

records = read("uci_sms_spam.jsonl.zst", 5) + read("thai_sms.jsonl.zst", 5)
handmade = [
    ("VM-HDFCBK-S", "Rs 2,500.00 debited from a/c XX1234 on 12-05-24 to VPA zomato@hdfc. Not you? Call 18002586161"),
    ("AD-AMAZON-S", "Your order #402-1234567 has been shipped and will be delivered tomorrow. Track: amzn.in/d/abc"),
    ("JM-APOLLO-S", "Reminder: your appointment with Dr. Mehta is on 14 May at 10:30 AM. Reply C to cancel."),
    ("VK-IMDWTH-G", "IMD alert: heavy rainfall expected in Mumbai over the next 48 hours. Stay indoors."),
    ("JX-JIOINF-T", "Your Jio prepaid plan expires in 2 days. Recharge now to continue enjoying unlimited data."),
    ("BZ-SWIGGY-P", "Flat 50% OFF on your next 3 orders! Use code SWIGGY50. T&C apply."),
    ("BP-MYNTRA-P", "Use coupon code STYLE20 to get extra 20% off on your first purchase"),
    ("VM-UIDAI-G", "Your Aadhaar has been updated successfully. Download e-Aadhaar at uidai.gov.in"),
    ("+919812345678", "bhai kal party hai, aa jana 8 baje"),
    ("+919812345678", "aapka OTP 482913 hai. Kisi ke saath share na karein."),
    ("AX-SBIINB-S", "प्रिय ग्राहक, आपके खाते से रु 1500 डेबिट किए गए हैं।"),
    ("56161", "Congratulations! You have won a lottery of Rs 25,00,000. Send your bank details to claim now."),
    ("95588", "【工商银行】您尾号1234的账户于05月12日支出人民币500.00元。"),
    ("10086", "【中国移动】您的话费余额不足10元，请及时充值。"),
    ("JD", "【京东】您的订单已发货，快递单号SF123456789。"),
    ("+8613800138000", "恭喜您中奖了！请点击链接领取奖金 http://bit.ly/xxx"),
    ("AIS", "รหัส OTP ของคุณคือ 839201 ใช้ภายใน 5 นาที"),
    ("KBank", "บัญชี xx1234 ถอน/โอนเงิน 2,000.00 บาท คงเหลือ 15,320.50 บาท"),
    ("alerts@paytm.com", "You received Rs 500 cashback in your Paytm wallet. Reward points credited."),
    ("+14155550123", "Hey, are we still on for lunch tomorrow?"),
]
for i, (sender, body) in enumerate(handmade, 1):
    records.append({"id": f"handmade:{i}", "sender": sender, "body": body, "label": None, "lang": None})

data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
subprocess.run(["zstd", "-q", "-19", "-f", "-o", out], input=data, check=True)
print(f"{len(records)} records, {len(data)} bytes -> {out}")

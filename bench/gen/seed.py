"""Seed workloads for bench/run, after fastjson2's seed benchmarks.

    /usr/bin/python3 bench/gen/seed.py OUTDIR [--jsonl-mib N,...] [--counts 1,100,...]

Writes, deterministically (fixed seed; the same bytes on every machine):
  databean-N.json  N DataBean records as one JSON array: boolean, int, long,
                   double, date string, random string, a list of up to 100
                   strings, a map of up to 100 mixed values, a nullable note
  student-N.json   N Student records with Chinese names, classes, addresses
  order-N.json     N nested order documents (customer, address, items,
                   payment, shipping)
  databean-NMiB.jsonl  DataBean records, one per line, about N MiB each
                   (--jsonl-mib 100,1024 writes databean-100MiB.jsonl and
                   databean-1GiB.jsonl)
  student-N-sparse.json, order-N-sparse.json
                   the same records without their null members, as
                   fastjson2 writes them by default: records that leave
                   out members of the others (--sparse-counts, of
                   --counts)

Large outputs are assembled from a pool of distinct records (each given its
own id), so 1 GiB takes seconds, not minutes. Keys are camelCase (as Java
beans serialize), dates ISO 8601 strings with an offset, and some members are
null, so the writer-feature flags (key case, dates, nulls) all have work.
"""
import argparse
import json
import os
import random
import string

SEED = 20240229
POOL = 4096
COUNTS = (1, 100, 1000, 10000, 100000)

ALNUM = string.ascii_letters + string.digits
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo "
         "lima mike november oscar papa quebec romeo sierra tango uniform "
         "victor whiskey xray yankee zulu").split()
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀兰霞平刚桂英华玉萍红娥玲芬飞鑫波斌宇浩凯健俊帆帅旭宁龙林欣怡婷雪琳晨曦子轩梓涵一诺欣妍浩宇雨泽"
PROVINCES = ("北京市", "上海市", "广东省", "江苏省", "浙江省", "四川省", "湖北省",
             "山东省", "河南省", "福建省")
CITIES = ("朝阳区", "浦东新区", "广州市", "南京市", "杭州市", "成都市", "武汉市",
          "青岛市", "郑州市", "厦门市", "常州市", "苏州市")
STREETS = ("人民路", "解放路", "中山路", "建设路", "和平街", "长江路", "黄河路",
           "新华街", "文化路", "光明路")
SCHOOLS = ("第一中学", "实验中学", "外国语学校", "师大附中", "育才中学")
HOBBIES = ("篮球", "足球", "羽毛球", "围棋", "书法", "钢琴", "绘画", "编程",
           "阅读", "游泳", "跑步", "摄影")
REMARKS = ("学习认真，积极参加班级活动。", "数学成绩优异，乐于助人。",
           "需要加强英语口语练习。", "担任班级学习委员，表现突出。")
PRODUCTS = ("无线蓝牙耳机 Pro", "Mechanical Keyboard K8", "智能手表 S3",
            "USB-C 充电器 65W", "4K Monitor 27\"", "保温杯 500ml",
            "Running Shoes Air", "有机绿茶 250g", "Notebook A5 (3-pack)",
            "空气净化器 X1")
COLORS = ("黑色", "白色", "red", "blue", "深空灰", "silver")
SIZES = ("S", "M", "L", "XL", "均码", "42", "43")
STATUSES = ("CREATED", "PAID", "SHIPPED", "DELIVERED", "CANCELLED",
            "REFUNDED")
ORDER_REMARKS = ("请尽快发货", "工作日送货，周末不在家", "Leave at the front desk",
                 "发票抬头：个人", "礼品包装，不要放价格单")
CARRIERS = ("SF Express", "顺丰速运", "中通快递", "JD Logistics", "EMS")
PAY_METHODS = ("ALIPAY", "WECHAT_PAY", "CREDIT_CARD", "UNION_PAY")


def rand_str(rng, lo, hi):
    return "".join(rng.choices(ALNUM, k=rng.randint(lo, hi)))


def rand_date(rng):
    # 1995..2030, millisecond precision, a few offsets (China first).
    year = rng.randint(1995, 2030)
    offset = rng.choice(("+08:00", "+08:00", "+08:00", "Z", "-05:00",
                         "+05:30"))
    return (f"{year:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}{offset}")


def rand_double(rng):
    return round(rng.uniform(-1e6, 1e6), rng.randint(1, 6))


def mixed_value(rng):
    kind = rng.randrange(7)
    if kind == 0:
        return rng.randint(-1000, 1000)
    if kind == 1:
        return rng.randint(-2**62, 2**62)
    if kind == 2:
        return rand_double(rng)
    if kind == 3:
        return rand_str(rng, 1, 24)
    if kind == 4:
        return rng.random() < 0.5
    if kind == 5:
        return None
    return rng.choice(WORDS)


def databean(rng):
    n_tags = rng.randint(0, 100)
    n_attrs = rng.randint(0, 100)
    return {
        "active": rng.random() < 0.5,
        "quantity": rng.randint(0, 1000000),
        "serialNumber": rng.randint(2**32, 2**63 - 1),
        "price": rand_double(rng),
        "createdAt": rand_date(rng),
        "token": rand_str(rng, 8, 32),
        "tags": [rng.choice(WORDS) + "-" + rand_str(rng, 2, 6)
                 for _ in range(n_tags)],
        "attributes": {f"{rng.choice(WORDS)}{i}": mixed_value(rng)
                       for i in range(n_attrs)},
        "note": None if rng.random() < 0.5 else rand_str(rng, 4, 40),
    }


def chinese_name(rng):
    return rng.choice(SURNAMES) + "".join(rng.choices(GIVEN,
                                                     k=rng.randint(1, 2)))


def student(rng):
    return {
        "name": chinese_name(rng),
        "gender": rng.choice(("男", "女")),
        "age": rng.randint(12, 22),
        "className": f"高{rng.choice('一二三')}({rng.randint(1, 12)})班",
        "school": rng.choice(CITIES) + rng.choice(SCHOOLS),
        "address": (rng.choice(PROVINCES) + rng.choice(CITIES) +
                    rng.choice(STREETS) + f"{rng.randint(1, 999)}号"),
        "phone": "1" + "".join(rng.choices(string.digits, k=10)),
        "enrollDate": rand_date(rng),
        "scores": {"chinese": round(rng.uniform(40, 100), 1),
                   "math": round(rng.uniform(40, 100), 1),
                   "english": round(rng.uniform(40, 100), 1)},
        "hobbies": rng.sample(HOBBIES, rng.randint(0, 4)),
        "classMonitor": rng.random() < 0.1,
        "guardianName": chinese_name(rng) if rng.random() < 0.7 else None,
        "remark": rng.choice(REMARKS) if rng.random() < 0.5 else None,
    }


def order(rng):
    items = []
    total = 0.0
    for _ in range(rng.randint(1, 8)):
        qty = rng.randint(1, 5)
        price = round(rng.uniform(1, 2000), 2)
        total += qty * price
        items.append({
            "skuId": rng.randint(10**11, 10**12),
            "productName": rng.choice(PRODUCTS),
            "quantity": qty,
            "unitPrice": price,
            "discountRate": (None if rng.random() < 0.6
                             else round(rng.uniform(0.5, 0.95), 2)),
            "properties": {"color": rng.choice(COLORS),
                           "size": rng.choice(SIZES)},
        })
    paid = rng.random() < 0.8
    return {
        "orderNo": f"ORD{rng.randint(10**15, 10**16 - 1)}",
        "status": rng.choice(STATUSES),
        "createdAt": rand_date(rng),
        "paidAt": rand_date(rng) if paid else None,
        "customer": {
            "customerId": rng.randint(1, 10**9),
            "nickName": chinese_name(rng) if rng.random() < 0.5
            else rand_str(rng, 5, 12),
            "email": rand_str(rng, 5, 12).lower() + "@example.com",
            "vipLevel": rng.randint(0, 9),
            "address": {"province": rng.choice(PROVINCES),
                        "city": rng.choice(CITIES),
                        "street": rng.choice(STREETS) +
                        f"{rng.randint(1, 999)}号",
                        "zipCode": f"{rng.randint(100000, 999999)}"},
        },
        "items": items,
        "payment": {"method": rng.choice(PAY_METHODS),
                    "amount": round(total, 2),
                    "currency": "CNY",
                    "transactionId": rand_str(rng, 24, 24) if paid else None},
        "shipping": {"carrier": rng.choice(CARRIERS),
                     "trackingNo": rand_str(rng, 12, 16).upper(),
                     "fee": round(rng.uniform(0, 30), 2),
                     "estimatedDelivery": rand_date(rng)},
        "couponCodes": [rand_str(rng, 8, 8).upper()
                        for _ in range(rng.randint(0, 3))],
        "remark": None if rng.random() < 0.7 else rng.choice(ORDER_REMARKS),
    }


KINDS = {"databean": (databean, "id"), "student": (student, "studentId"),
         "order": (order, "orderId")}
# Kinds also written without their null members (DataBean's nulls are in
# maps whose keys differ from record to record anyway).
SPARSE_KINDS = ("student", "order")


def pool_of(kind, size):
    """`size` distinct records as compact JSON texts without their id."""
    make, _ = KINDS[kind]
    rng = random.Random(f"{SEED}-{kind}")
    return [json.dumps(make(rng), ensure_ascii=False,
                       separators=(",", ":"))[1:] for _ in range(size)]


def records(kind, pool, count):
    """Yields `count` compact records: pool entries with ids 1..count,
    taken in a fixed pseudo-random order once the pool is exhausted."""
    _, id_key = KINDS[kind]
    rng = random.Random(f"{SEED}-{kind}-order")
    head = '{"%s":' % id_key
    for i in range(count):
        body = pool[i] if i < len(pool) else pool[rng.randrange(len(pool))]
        yield f"{head}{i + 1},{body}"


def without_nulls(value):
    """`value` with every object member whose value is null left out."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def sparse_pool(pool):
    """The pool's records (texts without their opening brace) without their
    null members."""
    out = []
    for body in pool:
        rec = without_nulls(json.loads("{" + body))
        out.append(json.dumps(rec, ensure_ascii=False,
                              separators=(",", ":"))[1:])
    return out


def write_atomic(path, chunks):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for chunk in chunks:
            f.write(chunk.encode())
    os.replace(tmp, path)


def batched(texts, sep, n=4096):
    batch = []
    for t in texts:
        batch.append(t)
        if len(batch) == n:
            yield sep.join(batch)
            batch = []
    if batch:
        yield sep.join(batch)


def write_array(path, kind, pool, count):
    def chunks():
        yield "["
        first = True
        for text in batched(records(kind, pool, count), ","):
            yield text if first else "," + text
            first = False
        yield "]\n"
    write_atomic(path, chunks())


def write_lines(path, kind, pool, target_bytes):
    def chunks():
        written = 0
        for text in batched(records(kind, pool, 1 << 62), "\n"):
            yield text + "\n"
            written += len(text.encode()) + 1
            if written >= target_bytes:
                return
    write_atomic(path, chunks())


def lines_label(mib):
    """100 -> "100MiB", 1024 -> "1GiB": the JSON Lines file's name."""
    return f"{mib >> 10}GiB" if mib % 1024 == 0 else f"{mib}MiB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--jsonl-mib", default="1024")
    ap.add_argument("--counts", default=",".join(map(str, COUNTS)))
    ap.add_argument("--sparse-counts", default="10000,100000")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    counts = [int(c) for c in args.counts.split(",") if c]
    sparse = [int(c) for c in args.sparse_counts.split(",")
              if c and int(c) in counts]
    for kind in KINDS:
        pool = pool_of(kind, min(POOL, max(counts)))
        for count in counts:
            write_array(os.path.join(args.outdir, f"{kind}-{count}.json"),
                        kind, pool, count)
        if kind in SPARSE_KINDS and sparse:
            thin = sparse_pool(pool)
            for count in sparse:
                write_array(os.path.join(args.outdir,
                                         f"{kind}-{count}-sparse.json"),
                            kind, thin, count)
        if kind != "databean":
            continue
        for mib in (int(m) for m in args.jsonl_mib.split(",") if m):
            write_lines(os.path.join(args.outdir,
                                     f"databean-{lines_label(mib)}.jsonl"),
                        kind, pool, mib << 20)


if __name__ == "__main__":
    main()
